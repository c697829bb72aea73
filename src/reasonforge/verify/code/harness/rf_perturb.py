"""Deterministic perturbations of recorded call arguments: the extra inputs of the differential run.

A variant changes one argument (the others stay as recorded), or, in a second round, one more argument
of a first-round variant, so inputs stay close to what the tests considered meaningful. Per type: ints
±1, 0, -x, 2x and one "interesting" value (powers of two and word-size bounds, as fuzzers use); floats the same and x/2; bool negated;
str/bytes empty, reversed, one char dropped / duplicated / changed, swapcase; list/tuple empty,
reversed, sorted, first or last dropped, an element duplicated, an element perturbed as its type
(recursively), every number in it negated or incremented (signs and offsets matter to many algorithms); dict empty, a key dropped, a value perturbed, a key perturbed; set emptied, an element
dropped, an element perturbed. Positions are drawn from a seeded random.Random, so a run is repeatable.
"""

import json
from typing import Any

import rf_values

MAX_DEPTH = 6
INTERESTING = (2, 7, 10, 100, 255, 256, 1000, 1024, 65535, 2**31 - 1, 2**31, 2**32, -(2**31))


def variants(value, rng, depth=0):
    """Values near `value` of the same type (never `value` itself), in a fixed order."""
    t = type(value)
    if depth > MAX_DEPTH:
        return []
    out: list[Any]
    if t is bool:
        out = [not value]
    elif t is int:
        out = [value + 1, value - 1, 0, -value, 2 * value, rng.choice(INTERESTING)]
    elif t is float:
        out = [value + 1.0, value - 1.0, 0.0, -value, 2.0 * value, value / 2.0]
    elif t is complex:
        out = [value + 1, -value, 0j]
    elif t is str or t is bytes:
        out = _text(value, rng)
    elif t is list or t is tuple:
        out = [t(x) for x in _sequence(list(value), rng, depth)]
    elif t is dict:
        out = _mapping(value, rng, depth)
    elif t is set or t is frozenset:
        out = [t(x) for x in _set(value, rng, depth)]
    else:
        out = []
    return [v for v in out if not _same(v, value)]


def _text(s, rng):
    out = [s[:0], s[::-1], s.swapcase()]
    if s:
        i = rng.randrange(len(s))
        out += [s[:i] + s[i + 1:], s[:i + 1] + s[i:i + 1] + s[i + 1:]]
        j = rng.randrange(len(s))
        if isinstance(s, str):
            out.append(s[:j] + chr((ord(s[j]) + 1) % 0x110000) + s[j + 1:])
        else:
            out.append(s[:j] + bytes([(s[j] + 1) % 256]) + s[j + 1:])
    return out


def _sequence(xs, rng, depth):
    out = [[], xs[::-1]]
    try:
        out.append(sorted(xs))
    except TypeError:
        pass
    if xs:
        out += [xs[1:], xs[:-1]]
        i = rng.randrange(len(xs))
        out.append(xs[:i + 1] + [xs[i]] + xs[i + 1:])
        for i in sorted(rng.sample(range(len(xs)), min(3, len(xs)))):
            near = variants(xs[i], rng, depth + 1)
            for v in rng.sample(near, min(2, len(near))):
                out.append(xs[:i] + [v] + xs[i + 1:])
        out += [_map_numbers(xs, lambda x: -x), _map_numbers(xs, lambda x: x + 1)]
    return out


def _map_numbers(value, f):
    """`value` with f applied to every int/float inside its lists and tuples."""
    t = type(value)
    if t is int or t is float:
        return f(value)
    if t is list or t is tuple:
        return t(_map_numbers(x, f) for x in value)
    return value


def _mapping(d, rng, depth):
    out: list[dict[Any, Any]] = [{}]
    keys = list(d)
    if keys:
        drop = rng.choice(keys)
        out.append({k: v for k, v in d.items() if k != drop})
        for k in rng.sample(keys, min(3, len(keys))):
            near = variants(d[k], rng, depth + 1)
            if near:
                out.append({**d, k: rng.choice(near)})
        k = rng.choice(keys)
        near = [n for n in variants(k, rng, depth + 1) if _hashable(n) and n not in d]
        if near:
            new = rng.choice(near)
            out.append({(new if key == k else key): v for key, v in d.items()})
    return out


def _set(s, rng, depth):
    out: list[set[Any]] = [set()]
    items = sorted(s, key=repr)
    if items:
        drop = rng.choice(items)
        out.append(s - {drop})
        near = [n for n in variants(rng.choice(items), rng, depth + 1) if _hashable(n)]
        if near:
            out.append(set(s) | {rng.choice(near)})
    return out


def _hashable(v):
    try:
        hash(v)
    except TypeError:
        return False
    return True


def _same(a, b):
    try:
        return type(a) is type(b) and key_of(a) == key_of(b)
    except (rf_values.Unsupported, TypeError, ValueError, RecursionError):
        return False


def key_of(value):
    """A canonical text for a plain value (dedupes inputs)."""
    return json.dumps(rf_values.encode(value, max_nodes=100_000), sort_keys=True)


def _one_step(args, kwargs, rng):
    out = []
    for i, a in enumerate(args):
        out += [(args[:i] + [v] + args[i + 1:], kwargs) for v in variants(a, rng)]
    for k in sorted(kwargs):
        out += [(args, {**kwargs, k: v}) for v in variants(kwargs[k], rng)]
    return out


def perturbed_calls(args, kwargs, rng, limit):
    """Up to `limit` (args, kwargs): first-round variants (one argument perturbed) in random order, then
    second-round ones (a first-round variant perturbed once more). May repeat; the caller dedupes."""
    first = _one_step(args, kwargs, rng)
    rng.shuffle(first)
    second = []
    for a, k in first[: max(0, limit - len(first))]:
        nxt = _one_step(a, k, rng)
        if nxt:
            second.append(rng.choice(nxt))
    return (first + second)[:limit]
