"""The README and docs/: every relative link points to a file of the checkout, the README stays a
front page (at most 250 lines), and every doc is reachable from it. Reads text only."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
MAX_README_LINES = 250

# [text](target) and ![alt](target), with an optional "title" after the target.
LINK = re.compile(r"!?\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`\n]*`")


def _prose(text: str) -> str:
    """The text without fenced code blocks and code spans, where brackets are not links."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def links(text: str) -> list[str]:
    return [m.group("target") for m in LINK.finditer(_prose(text))]


def is_relative(target: str) -> bool:
    return not (target.startswith(("http://", "https://", "mailto:", "#")))


def relative_links(path: Path) -> list[str]:
    return [t for t in links(path.read_text(encoding="utf-8")) if is_relative(t)]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = CODE_SPAN.sub(lambda m: m.group(0)[1:-1], heading.strip()).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    return {slug(line.lstrip("#")) for line in text.splitlines() if re.match(r"#{1,6} ", line)}


FILES = [README, *DOCS]


def test_the_link_pattern_finds_links_and_skips_code():
    sample = ("See [a](docs/a.md), ![pic](docs/p.svg \"title\"), [web](https://x.org), [top](#top).\n"
              "`[not](a/link.md)`\n```\n[nor](this.md)\n```\n")
    assert links(sample) == ["docs/a.md", "docs/p.svg", "https://x.org", "#top"]
    assert [t for t in links(sample) if is_relative(t)] == ["docs/a.md", "docs/p.svg"]
    assert slug("Win, draw, loss (UCI_ShowWDL)") == "win-draw-loss-uci_showwdl"
    assert slug("The `brudno` command") == "the-brudno-command"


def test_the_readme_has_relative_links_to_check():
    found = relative_links(README)
    assert len(found) >= 5, found
    assert "docs/alphabeta-tree.svg" in found


def test_there_are_docs():
    assert len(DOCS) >= 5, DOCS


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_points_to_a_file(path: Path):
    broken = []
    for target in relative_links(path):
        file_part, _, fragment = target.partition("#")
        resolved = (path.parent / file_part).resolve()
        if not resolved.is_file():
            broken.append(target)
        elif fragment and resolved.suffix == ".md" and fragment not in anchors(resolved):
            broken.append(target + " (no such heading)")
    assert not broken, f"{path.relative_to(ROOT)}: {broken}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_anchor_within_the_file_exists(path: Path):
    own = anchors(path)
    missing = [t for t in links(path.read_text(encoding="utf-8"))
               if t.startswith("#") and t[1:] not in own]
    assert not missing, f"{path.relative_to(ROOT)}: {missing}"


def test_readme_is_a_front_page():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines (at most {MAX_README_LINES})"


def test_every_doc_has_a_title_and_is_reachable_from_the_readme():
    reached, todo = set(), [README.resolve()]
    while todo:
        page = todo.pop()
        for target in relative_links(page):
            resolved = (page.parent / target.partition("#")[0]).resolve()
            if resolved.suffix == ".md" and resolved.is_file() and resolved not in reached:
                reached.add(resolved)
                todo.append(resolved)
    for doc in DOCS:
        assert doc.read_text(encoding="utf-8").startswith("# "), f"{doc.name}: no one-line title"
        assert doc.resolve() in reached, f"{doc.name} cannot be reached from README.md"
