"""The local validator set file: created once with owner-only secrets, read back bounded, refused when damaged."""

import json
import stat
from pathlib import Path

import pytest

from reasonforge.certificate.params import SMALL
from reasonforge.certificate.validators import load_or_create
from reasonforge.errors import InputError


def test_created_once_then_read_back(tmp_path: Path) -> None:
    path = tmp_path / "keys" / "validators.json"
    created, fresh = load_or_create(path, SMALL)
    again, second = load_or_create(path, SMALL)
    assert fresh and not second and again == created
    assert len(created.validators) == SMALL.max_validators and created.threshold == 2  # 2/3 of 3, rounded up
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # the file holds secret keys


def test_damaged_file_is_refused_naming_the_field_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "validators.json"
    created, _ = load_or_create(path, SMALL)
    good = json.loads(created.model_dump_json())
    repeated = json.dumps(good)[:-1] + f', "threshold": {good["threshold"] - 1}}}'
    bad_stake = json.dumps({**good, "validators": [{**good["validators"][0], "stake": -1}]})
    cases = {"[" * 100_000: "nested more than", repeated: "repeats the key .threshold.", bad_stake: r"validators\[0\]\.stake",
             "{oops": "not valid JSON"}
    for damaged, reason in cases.items():
        path.write_text(damaged)
        with pytest.raises(InputError, match=f"validators.json.*{reason}.*move it aside") as caught:
            load_or_create(path, SMALL)
        assert caught.value.field == "validators"
        assert path.read_text() == damaged  # never overwritten: certificates made with it would stop verifying
