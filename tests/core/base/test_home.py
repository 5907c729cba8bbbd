"""The home's root and the names derived from it (FORMAT.md §1)."""

from __future__ import annotations

from sidtui.core.base.home import Home, safe_id


def test_resolve_home_order(tmp_path):
    assert Home.resolve(str(tmp_path), {"SID_CONFIG_DIR": "/nope"}).root == tmp_path
    assert Home.resolve(None, {"SID_CONFIG_DIR": str(tmp_path)}).root == tmp_path
    assert Home.resolve(None, {"HOME": str(tmp_path)}).root == tmp_path / ".sid-code"


def test_safe_id():
    assert safe_id("a/b.c-d_e") == "a_b_c-d_e"
