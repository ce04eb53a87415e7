"""``--reader KEY=VALUE``: reader options (csv columns) from the command line."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from pagesim.cli import app


def test_reader_options_choose_csv_columns(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A csv without a header: the id column is chosen with --reader id_col=N."""
    path = tmp_path / "nohdr.csv"
    path.write_text("1,7,a\n2,9,b\n3,7,c\n")
    bad = CliRunner().invoke(app, ["trace", "info", str(path)])
    assert bad.exit_code == 2 and "--reader id_col=N" in bad.output
    ok = CliRunner().invoke(app, ["trace", "info", str(path), "--reader", "id_col=2", "--json"])
    assert ok.exit_code == 0, ok.output
    stats = json.loads(ok.stdout)
    assert (stats["requests"], stats["unique_pages"]) == (3, 2)
