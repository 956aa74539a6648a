"""The op catalogue in docs/ops.md is generated from the ODS and must be current."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_ops_md_matches_the_ods():
    generated = os.path.join(ROOT, "build", "cmake", "dialect", "JaxcDialect.md")
    committed = os.path.join(ROOT, "docs", "ops.md")
    assert os.path.isfile(generated), "build first: `make build` generates JaxcDialect.md"
    with open(generated) as g, open(committed) as c:
        assert g.read() == c.read(), "docs/ops.md is stale: run `make docs` and commit it"


def test_readme_names_both_commands():
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    assert "make demo" in text and "make test" in text
