"""The edges of the system: readers of untrusted input, and what may leave it.

Every reader here is total and bounded: it returns a value or raises one `InputError` that names what is wrong and
where (file, line, column, field), in time linear in a size that is checked first, never a traceback. A JSON or
JSON-lines text is scanned before it is decoded (`jsontext`: nesting depth, repeated keys, NaN, oversized numbers,
lone surrogates), a TOML file likewise (`tomltext`: nesting and dotted keys), a file is read up to a size cap
(`files`), CSV headers must be distinct (`tabular`), and an HTTP reply is read under one total deadline and a size
cap (`http`). `secrets` strips credentials (URL userinfo, keys, header values) from anything that leaves the
process: specs, messages, logs, pages.

The room imports only `errors` and third-party packages, so every other room may use it.
"""
