"""`python -m reasonforge`: the `reasonforge` command."""

from reasonforge.cli import app

app()
