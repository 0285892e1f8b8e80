"""The repository stands alone: nothing refers outside it, its links resolve, and the README
stays a front page. Runs on the files git would commit (tracked, or new and not ignored);
skipped outside a git checkout, e.g. in an installed wheel."""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README_LIMIT = 12 * 1024  # bytes
# CI installs and tests exactly as the README's quick start says.
QUICK_START = ('pip install -e ".[test]" && jabba hint --hand jabba,guard --face-up '
               'crumb,bib,merc --area 0=han --seat 1', "python -m pytest -q")
# Spelled in pieces so that this file does not contain what it looks for.
SHARED_FOLDER = "/".join(["..", "shared"])
MACHINE_DIRS = tuple(f"/{d}/" for d in ("work", "root", "home", "tmp"))
LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
DOC_SECTION = re.compile(r"docs/([\w.-]+\.md),? \"([^\"\n]+)\"")
DOC_MENTION = re.compile(r"\bdocs/([\w.-]+\.md)\b")


@dataclasses.dataclass(frozen=True)
class Repository:
    root: Path
    names: frozenset[str]  # every file git would commit
    texts: dict[str, str]  # the text ones, by repository path


def _read_texts(root: Path, names) -> dict[str, str]:
    texts = {}
    for name in sorted(names):
        data = (root / name).read_bytes()
        if b"\0" in data[:8192]:
            continue
        try:
            texts[name] = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
    return texts


@pytest.fixture(scope="module")
def repo() -> Repository:
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed: cannot list the repository's files")
    top = subprocess.run([git, "rev-parse", "--show-toplevel"], cwd=ROOT,
                         capture_output=True, text=True)
    if top.returncode != 0 or Path(top.stdout.strip()).resolve() != ROOT:
        pytest.skip(f"{ROOT} is not a git checkout (an installed package?)")
    listed = subprocess.run([git, "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=ROOT, capture_output=True, check=True)
    # A file deleted in the work tree but not yet in git is gone.
    names = frozenset(n for n in listed.stdout.decode().split("\0") if n and (ROOT / n).is_file())
    texts = _read_texts(ROOT, names)
    assert "README.md" in texts and "docs/RULES.md" in texts
    return Repository(ROOT, names, texts)


def _hits(texts: dict[str, str], needles, where=lambda name: True) -> list[str]:
    found = []
    for name, text in texts.items():
        if not where(name):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            for needle in needles:
                if needle in line:
                    found.append(f"{name}:{number}: {line.strip()[:120]}")
    return found


def _is_document(name: str) -> bool:
    return name == "README.md" or name.startswith(("docs/", "results/"))


def test_nothing_refers_to_the_shared_folder(repo):
    hits = _hits(repo.texts, [SHARED_FOLDER])
    assert not hits, "references outside the repository:\n" + "\n".join(hits)


def test_no_absolute_machine_paths_in_documents_and_results(repo):
    """Code may hold such paths as test data (a path scrubber's tests); what is read is not."""
    hits = _hits(repo.texts, MACHINE_DIRS, where=_is_document)
    assert not hits, "absolute paths of a machine:\n" + "\n".join(hits)


def _links(text: str) -> list[str]:
    return LINK.findall(FENCE.sub("", text))


def _is_relative(target: str) -> bool:
    return not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) and not target.startswith("#")


def escaping_links(root: Path, texts: dict[str, str]) -> list[str]:
    """Relative links, in any text file, that point outside `root` (or from its top)."""
    bad = []
    for name, text in texts.items():
        for target in filter(_is_relative, _links(text)):
            path = target.split("#", 1)[0]
            resolved = (root / name).parent.joinpath(path).resolve()
            if path.startswith("/") or not resolved.is_relative_to(root.resolve()):
                bad.append(f"{name}: {target}")
    return bad


def test_no_relative_link_leaves_the_repository(repo):
    bad = escaping_links(repo.root, repo.texts)
    assert not bad, "links that leave the repository:\n" + "\n".join(bad)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(text: str) -> set[str]:
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", FENCE.sub("", text), re.M)}


def test_the_slug_is_githubs():
    assert _slug("R5. Naming a number") == "r5-naming-a-number"
    assert _slug("Hints: \"which card should I play?\"") == "hints-which-card-should-i-play"
    assert _slug("The OpenSpiel game `jabbas_palace`") == "the-openspiel-game-jabbas_palace"


def _is_front_document(name: str) -> bool:
    return name == "README.md" or re.fullmatch(r"docs/[^/]+\.md", name) is not None


def broken_links(root: Path, names: frozenset[str], texts: dict[str, str]) -> list[str]:
    """Links of README.md and docs/*.md to files git would not commit, or to sections
    their target lacks. A folder counts when git would commit a file in it."""
    folders = {str(p) for n in names for p in Path(n).parents}
    bad = []
    for name in filter(_is_front_document, texts):
        for target in filter(_is_relative, _links(texts[name])):
            path, _, anchor = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(name), path))
            if resolved not in names and resolved.rstrip("/") not in folders:
                bad.append(f"{name}: {target} (no such file in the repository)")
            elif anchor and resolved in texts and resolved.endswith(".md"):
                if anchor not in _anchors(texts[resolved]):
                    bad.append(f"{name}: {target} (no such section)")
        for anchor in re.findall(r"\]\(#([^)\s]+)\)", FENCE.sub("", texts[name])):
            if anchor not in _anchors(texts[name]):
                bad.append(f"{name}: #{anchor} (no such section)")
    return bad


def test_document_links_resolve(repo):
    assert len([n for n in repo.texts if _is_front_document(n)]) >= 7
    bad = broken_links(repo.root, repo.names, repo.texts)
    assert not bad, "broken links:\n" + "\n".join(bad)


def test_the_link_checks_catch_what_they_look_for(tmp_path):
    d = "docs"  # not spelled out, so that this file cites no document of the repository
    texts = {"README.md": f"[a]({d}/gone.md) [b](../outside.md) [c]({d}/x.md#nope) "
                          f"[d]({d}/x.md#title) [e]({d}/) [f](#here)\n",
             f"{d}/x.md": "# Title\n\n[g](../README.md#nowhere)\n"}
    for name, text in texts.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    assert _read_texts(tmp_path, texts) == texts
    assert escaping_links(tmp_path, texts) == ["README.md: ../outside.md"]
    assert broken_links(tmp_path, frozenset(texts), texts) == [
        f"README.md: {d}/gone.md (no such file in the repository)",
        "README.md: ../outside.md (no such file in the repository)",
        f"README.md: {d}/x.md#nope (no such section)",
        "README.md: #here (no such section)",
        f"{d}/x.md: ../README.md#nowhere (no such section)"]


def test_cited_documents_and_sections_exist(repo):
    """Code and docs cite docs/<name>.md, or with a "Section": both must be there."""
    bad = []
    for name, text in repo.texts.items():
        for doc in set(DOC_MENTION.findall(text)):
            if not (ROOT / "docs" / doc).is_file():
                bad.append(f"{name}: docs/{doc} does not exist")
        for doc, section in DOC_SECTION.findall(text):
            target = ROOT / "docs" / doc
            if target.is_file() and _slug(section) not in _anchors(target.read_text("utf-8")):
                bad.append(f"{name}: docs/{doc} has no section {section!r}")
    assert not bad, "\n".join(bad)


def test_readme_is_a_front_page_with_the_quick_start(repo):
    size = len(repo.texts["README.md"].encode("utf-8"))
    assert size <= README_LIMIT, f"README.md is {size} bytes; the front page keeps to " \
                                 f"{README_LIMIT}: move detail to docs/"
    for command in QUICK_START:
        assert command in repo.texts["README.md"], command


def import_cycles(root: Path) -> list[list[str]]:
    """The cycles of the import graph of cli/, solver/ and spiel_game/ (every import,
    lazy ones inside functions too; a module importing its own package's __init__ is
    not one): each strongly connected component of more than one module."""
    from spiel_game.jit_cache import module_imports

    modules = {}
    for package in ("cli", "solver", "spiel_game"):
        for path in (root / package).rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path

    def known(name):
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name

    graph = {}
    for m, path in modules.items():
        package = m if path.name == "__init__.py" else m.rpartition(".")[0]
        graph[m] = {t for t in map(known, module_imports(path, package))
                    if t and t != m and not m.startswith(t + ".")}
    reach = {}
    for m in graph:  # every module's reach, by a walk from it (a few hundred modules)
        seen, todo = set(), list(graph[m])
        while todo:
            t = todo.pop()
            if t not in seen:
                seen.add(t)
                todo.extend(graph[t])
        reach[m] = seen
    cycles = {frozenset([m] + [t for t in reach[m] if m in reach[t]]) for m in graph
              if m in reach[m]}
    return sorted(sorted(c) for c in cycles)


def test_no_import_cycles():
    assert import_cycles(ROOT) == []


def test_the_cycle_check_finds_a_cycle(tmp_path):
    for package in ("cli", "solver", "spiel_game"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "solver" / "a.py").write_text("def f():\n    from solver.b import g\n")
    (tmp_path / "solver" / "b.py").write_text("from solver import a\n")
    (tmp_path / "solver" / "c.py").write_text("from . import a\n")
    assert import_cycles(tmp_path) == [["solver.a", "solver.b"]]
