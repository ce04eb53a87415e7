"""``policies/params.toml`` is the one source of the built-in policies' parameters: every
parameter a policy has is there with the class's default, nothing else is, each has a unit, a
meaning and a source, each policy's docstring names it with that default, and ``pagesim
policies --params`` prints every row."""

from __future__ import annotations

import sys

from typer.testing import CliRunner

from pagesim.cli import app
from pagesim.policies.cast.costs import PRESS_POWER
from pagesim.policies.cast.knobs import DECAY_MEASURED, W_MEASURED
from pagesim.policies.params import described, every_param
from pagesim.policies.registry import policy_class, policy_names


def _shown(value: object) -> str:
    """A default as a docstring writes it: ``name = 0.8``, ``name = "cms"``, ``name = None``."""
    return f'"{value}"' if isinstance(value, str) else repr(value)


def test_every_parameter_is_in_the_toml_and_nothing_else() -> None:
    names = set(policy_names())
    in_toml = {p.policy for p in every_param()}
    assert in_toml <= names, f"not registered: {sorted(in_toml - names)}"
    for name in policy_names():
        cls = policy_class(name)
        rows = described(name)
        assert list(rows) == list(cls.params), name
        assert {k: r.default for k, r in rows.items()} == dict(cls.params), name
        for r in rows.values():
            assert r.unit and r.meaning and r.source, (name, r.name)


def test_every_docstring_names_each_parameter_with_its_default() -> None:
    for p in every_param():
        doc = sys.modules[policy_class(p.policy).__module__].__doc__ or ""
        assert f"{p.name} = {_shown(p.default)}" in doc, (p.policy, p.name)


def test_cast_constants_agree_with_the_toml() -> None:
    cast = described("cast")
    assert cast["press_power"].default == PRESS_POWER
    assert cast["decay"].default == DECAY_MEASURED
    assert cast["w_permille"].default == W_MEASURED


def test_policies_params_prints_every_parameter() -> None:
    result = CliRunner().invoke(app, ["policies", "--params"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    rows = {}
    for ln in result.output.splitlines():
        cells = [c.strip() for c in ln.split("│")]
        if len(cells) > 4 and cells[1]:
            rows[(cells[1], cells[2])] = cells[3]
    for p in every_param():
        assert rows.get((p.policy, p.name)) == ("unset" if p.default is None else repr(p.default)), p
