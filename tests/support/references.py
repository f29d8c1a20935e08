"""What the repository's prose points at, and whether it is still there (the guard: tests/unit/test_prose_paths.py).

The prose read: every Markdown page (README.md, ARCHITECTURE.md, the pages of docs/**, the fixtures' READMEs),
every docstring of every Python module (the module's, each class's and each function's) and every comment, the
comments of every SQL file (the leading one says what the file is), and the comments of the configuration files
(pyproject.toml, the Makefile, the YAML files outside the dump examples and fixtures). In Markdown the tokens read
are the words in backticks and in fenced code (and, outside them, citations of `.md` pages); elsewhere every word
counts, since code prose names files and modules with or without backticks.

A token is a repository path when, once a trailing `::test_name` and sentence punctuation are cut off:
- it contains '/' and its first segment is a top-level entry of the repository (`TOP_LEVEL`): it must exist from
  the root (a module may be written without `.py`, and `assets/specs.table_metadata` names a module's attribute);
- it contains '/', its first segment is a folder of a package root (`PACKAGE_ROOTS`: `runs/collect.py` is
  assets/runs/collect.py, `observed/request_pass/request_stats.sql` is in sql/) or beside the file mentioning it,
  and it names code or a page (`.py`, `.sql`, `.md`, or `module.attribute`): it must exist below one of them;
- it starts with `./` or `../` and names code, a page or a top-level entry: it must exist relative to the file
  mentioning it (or, for `./`, to the root, where make runs);
- it is a bare file name ending in `.py`, `.sql` or `.md`: some file of the repository has that name (first in
  the same folder), unless it is a file of another project (`FOREIGN_NAMES`: a tool's own script).
Documents outside the repository: the design and the references next to it (below `../shared`, its DESIGN page
and its reference/ folder), and any `.md` that is no page of the repository: the repository must not depend on
them. Other paths below `../shared` are the
published data, outside and not checked.
Not paths: tokens with a placeholder or a pattern (`<`, `>`, `*`, `{`, `}`, `[`, `]`, `...`, `$`, or an
upper-case segment such as NAME or WAREHOUSE), URLs, absolute paths, options (`--x`, `a=b`), and paths into what
the run or the tests write (the plain entries of .gitignore: the warehouse, test-artifacts, the venv).

A token is a module path when it is dotted and starts with one of `MODULE_ROOTS` (`assets.warehouse.validate`,
`pipelines.cli:main`, `assets.warehouse.validate.sql_checks`): the longest prefix that is a module of the
repository is the module, and what follows names something its source defines (read with ast, nothing
imported; one level into a class).

Every Markdown link `[text](target)` resolves: a relative target exists (relative to the page), an anchor
`#heading` is a heading of the target page (GitHub's slugs). Links to http(s) and mailto are not fetched.
"""

import ast
import fnmatch
import io
import os
import posixpath
import re
import subprocess
import tokenize
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

TOP_LEVEL = (
    ".ci",
    "assets",
    "bench",
    "deploy",
    "docs",
    "examples",
    "pipelines",
    "schemas",
    "sql",
    "tests",
    "ARCHITECTURE.md",
    "Makefile",
    "README.md",
    "pyproject.toml",
    "workspace.yaml",
)
PACKAGE_ROOTS = ("assets", "assets/formats", "schemas", "sql", "tests")
MODULE_ROOTS = ("assets", "pipelines", "schemas", "sql", "tests", "bench")
CODE_SUFFIXES = (".py", ".sql", ".md")
KNOWN_SUFFIXES = (".py", ".sql", ".md", ".csv", ".yaml", ".yml", ".toml", ".json")
# Named files of other projects that the prose cites by name: the tools' own scripts, and the notes that come
# with each published collection of dumps (../shared/data/dumps/public/<folder>/SOURCE.md).
FOREIGN_NAMES = frozenset(
    {
        "benchmark_serving.py",  # vLLM's bench script, before `vllm bench serve`
        "bench_serving.py",  # SGLang's (assets/formats/dumps/ has a module of that name, reading what it writes)
        "token_benchmark_ray.py",  # LLMPerf
        "generate_final_report.py",  # MLPerf's submission tools
        "SOURCE.md",
        "duckdb.sql",  # DuckDB's Python function
    }
)
PLACEHOLDER = re.compile(r"[<>*{}\[\]$]|\.\.\.")
OUTSIDE_DOCUMENT = re.compile(r"^\.\./shared/(DESIGN\.md|reference(/.*)?)$")
MODULE_TOKEN = re.compile(rf"^(?:{'|'.join(MODULE_ROOTS)})(?:\.[A-Za-z_]\w*)+(?::[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)?$")
WRAPPING = "\"'`()[],;!?"


@dataclass(frozen=True)
class Prose:
    """A piece of prose whose every word is read: `path` (relative to the repository) and the line its text
    starts on (of Markdown, only backticked spans and fenced code are pieces)."""

    path: str
    line: int
    text: str


@dataclass(frozen=True, order=True)
class Stale:
    path: str
    line: int
    token: str
    expected: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.token} -> {self.expected}"


@dataclass
class Repository:
    """The files of a checkout: tracked and not ignored (what a clean clone has), or every file when it is not a
    git checkout; `outputs` are the paths .gitignore names without a pattern (what runs and tests write)."""

    root: Path
    files: set[str]
    outputs: tuple[str, ...] = ()
    dirs: set[str] = field(init=False)

    def __post_init__(self) -> None:
        self.dirs = {parent.as_posix() for f in self.files for parent in Path(f).parents if parent != Path(".")}

    @classmethod
    def at(cls, root: Path) -> "Repository":
        ignore = root / ".gitignore"
        lines = ignore.read_text().splitlines() if ignore.exists() else []
        outputs = tuple(line.strip().strip("/") for line in lines if line.strip() and not re.search(r"[*?[!#]", line))
        return cls(root=root, files=set(_listed_files(root)), outputs=outputs)

    def has(self, path: str) -> bool:
        path = path.rstrip("/")
        return path in self.files or path in self.dirs

    def named(self, name: str) -> list[str]:
        return sorted(f for f in self.files if posixpath.basename(f) == name)

    def is_output(self, path: str) -> bool:
        return any(path == out or path.startswith(out + "/") for out in self.outputs)

    def source(self, path: str) -> str:
        return (self.root / path).read_text(encoding="utf-8")


def _listed_files(root: Path) -> Iterator[str]:
    if (root / ".git").exists():
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            capture_output=True,
            check=True,
        ).stdout.decode()
        yield from (f for f in listed.split("\0") if f and os.path.lexists(root / f))
        return
    for folder, dirs, names in os.walk(root):
        top = {"build", "warehouse", "test-artifacts"} if Path(folder) == root else set()  # assets/warehouse stays
        dirs[:] = [
            d
            for d in dirs
            if (d == ".ci" or not d.startswith(".")) and d != "__pycache__" and not d.endswith(".egg-info")
            if d not in top
        ]
        for name in names:
            yield Path(folder, name).relative_to(root).as_posix()


# -- the prose --------------------------------------------------------------------------------------------------


def prose_of(repository: Repository) -> list[Prose]:
    """Every piece of prose of the repository, in file order."""
    found: list[Prose] = []
    for path in sorted(repository.files):
        name = posixpath.basename(path)
        if path.endswith(".md"):
            found += markdown_prose(path, repository.source(path))
        elif path.endswith(".py"):
            found += python_prose(path, repository.source(path))
        elif path.endswith(".sql"):
            found += sql_comments(path, repository.source(path))
        elif name in ("pyproject.toml", "Makefile") or (
            path.endswith((".yaml", ".yml")) and not path.startswith(("examples/public/", "tests/fixtures/"))
        ):
            found += hash_comments(path, repository.source(path))
    return found


FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def markdown_lines(text: str) -> Iterator[tuple[int, str, bool]]:
    """Each line of a Markdown page with its number and whether it is inside a fenced code block (the fence lines
    themselves left out)."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
        else:
            yield number, line, fenced


def markdown_prose(path: str, text: str) -> list[Prose]:
    """A Markdown page: each backticked span (only its words count as tokens), each fenced block (every word)."""
    found = []
    for number, line, fenced in markdown_lines(text):
        if fenced:
            found.append(Prose(path, number, line))
            continue
        found += [Prose(path, number, m.group(2)) for m in CODE_SPAN.finditer(line)]
        # Outside backticks, only a citation of a page (a word ending in .md) is read.
        outside = CODE_SPAN.sub(" ", re.sub(r"\]\([^)]*\)", "]", line))
        found += [Prose(path, number, word) for word in outside.split() if _md_name(word)]
    return found


def _md_name(word: str) -> bool:
    return _clean(word).endswith(".md") and "://" not in word


def python_prose(path: str, source: str) -> list[Prose]:
    """Every docstring of a Python module (the module's, each class's and each function's) and every comment."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                if isinstance(first.value.value, str):
                    found.append(Prose(path, first.lineno, first.value.value))
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            found.append(Prose(path, token.start[0], token.string[1:]))
    return found


def sql_comments(path: str, source: str) -> list[Prose]:
    """The comments of a SQL file: its leading comment (what the file is) and each `--` comment after it."""
    found = []
    for number, line in enumerate(source.splitlines(), 1):
        at = line.find("--")
        if at >= 0 and line[:at].count("'") % 2 == 0:
            found.append(Prose(path, number, line[at + 2 :]))
    return found


def hash_comments(path: str, source: str) -> list[Prose]:
    """The `#` comments of a configuration file (pyproject.toml, the Makefile, YAML), one piece per line."""
    found = []
    for number, line in enumerate(source.splitlines(), 1):
        at = line.find("#")
        if at >= 0 and (at == 0 or line[at - 1] in " \t"):
            found.append(Prose(path, number, line[at + 1 :]))
    return found


def words(prose: Prose) -> Iterator[tuple[int, str]]:
    """The words of a piece of prose, each with its line."""
    for offset, line in enumerate(prose.text.split("\n")):
        for word in line.replace("`", " ").split():
            yield prose.line + offset, word


def _clean(word: str) -> str:
    """A word without what wraps it in a sentence: quotes, brackets, a trailing full stop, colon or comma."""
    word = word.strip(WRAPPING)
    while word.endswith((".", ":", ",", ";")) and not word.endswith(("../", "./")) and word not in (".", ".."):
        word = word[:-1].rstrip(WRAPPING)
    return word.lstrip("(")


# -- repository paths -------------------------------------------------------------------------------------------


def stale_paths(repository: Repository, prose: Iterable[Prose]) -> list[Stale]:
    """Every path-like token of the prose that points at nothing in the repository, or outside it."""
    stale = []
    for piece in prose:
        for line, word in words(piece):
            token = _clean(word)
            why = path_problem(repository, piece.path, token)
            if why:
                stale.append(Stale(piece.path, line, token, why))
    return sorted(set(stale))


def path_problem(repository: Repository, mentioned_in: str, token: str) -> str | None:
    """Why a token that looks like a repository path is stale, or None (fine, or not a path)."""
    if not token or "://" in token or token.startswith(("/", "~", "-")) or "=" in token:
        return None
    if token.startswith("../shared"):
        if OUTSIDE_DOCUMENT.match(token):
            return "a document outside the repository (../shared): cite a page of the repository instead"
        return None  # the published data: outside, not checked
    path, _, test_name = token.partition("::")
    if PLACEHOLDER.search(path) or any(_placeholder(segment) for segment in path.split("/")):
        return None
    here = posixpath.dirname(mentioned_in)
    if "/" not in path:
        return _bare_name_problem(repository, here, path)
    if path.startswith(("./", "../")):
        # Relative to the file mentioning it, or (`./warehouse`) to the repository's root, where make runs.
        resolved = [posixpath.normpath(posixpath.join(base, path)) for base in (here, "") if base or path[1] == "/"]
        resolved = [r for r in dict.fromkeys(resolved) if not r.startswith("../")]
        if not resolved or any(repository.is_output(r) for r in resolved):
            return None  # outside the repository, or what the run writes
        if not (_names_code(path) or path.lstrip("./").split("/")[0] in TOP_LEVEL):
            return None  # a path of some tool's own (a model folder in a quoted command)
        return _missing(repository, resolved, token, test_name)
    first = path.split("/")[0]
    if repository.is_output(path.rstrip("/")):
        return None
    if first in TOP_LEVEL:
        return _missing(repository, [path], token, test_name)
    bases = [base for base in (*PACKAGE_ROOTS, here) if base and repository.has(f"{base}/{first}")]
    if bases and _names_code(path):
        return _missing(repository, [f"{base}/{path}" for base in bases], token, test_name)
    return None  # a path in another project (`vllm/benchmarks/serve.py`), or in what a tool writes


def _placeholder(segment: str) -> bool:
    """An upper-case segment stands for a name (`sql/queries/NAME.sql`, `WAREHOUSE/runs`, `summary/X.json`), unless
    it is a Markdown page (README.md)."""
    stem, _, suffix = segment.partition(".")
    return bool(re.fullmatch(r"[A-Z][A-Z0-9_]*", stem)) and suffix != "md"


def _names_code(path: str) -> bool:
    last = path.rstrip("/").split("/")[-1]
    if last.endswith(CODE_SUFFIXES):
        return True
    stem, dot, attribute = last.rpartition(".")
    return bool(dot and stem and attribute.isidentifier() and f".{attribute}" not in KNOWN_SUFFIXES)


def _bare_name_problem(repository: Repository, here: str, name: str) -> str | None:
    if not name.endswith(CODE_SUFFIXES) or not re.fullmatch(r"[\w.+-]+", name) or name.startswith("."):
        return None
    if repository.has(posixpath.join(here, name)) or repository.named(name) or name in FOREIGN_NAMES:
        return None
    if name.endswith(".md"):
        return "a document outside the repository (no such page in it): cite a page of the repository instead"
    return "no file of that name in the repository"


def _missing(repository: Repository, candidates: list[str], token: str, test_name: str) -> str | None:
    """None when one of the candidates exists (with its test, when `::test` is named), else what was expected."""
    for candidate in candidates:
        found = _existing(repository, candidate.rstrip("/"))
        if found is None:
            continue
        if not test_name:
            return None
        if found.endswith(".py") and _defines(repository, found, test_name.split("::")):
            return None
        return f"{found} defines no {test_name}"
    shown = " or ".join(candidates)
    if token.endswith(".md") or any(c.endswith(".md") for c in candidates):
        return f"{shown}: no such page in the repository (cite a page of the repository, not a document outside it)"
    same_name = repository.named(posixpath.basename(candidates[0].rstrip("/")))
    hint = f" (a file of that name: {', '.join(same_name)})" if same_name else ""
    return f"{shown}: no such file or folder in the repository{hint}"


def _existing(repository: Repository, path: str) -> str | None:
    """The repository file or folder a path names: itself, the module it names without `.py`, or the module of
    `folder/module.attribute` when the module defines the attribute."""
    if repository.has(path):
        return path
    if repository.has(path + ".py"):
        return path + ".py"
    stem, dot, attribute = path.rpartition(".")
    if (
        dot
        and "/" not in attribute
        and repository.has(stem + ".py")
        and _defines(repository, stem + ".py", [attribute])
    ):
        return stem + ".py"
    return None


# -- module paths -----------------------------------------------------------------------------------------------


def stale_modules(repository: Repository, prose: Iterable[Prose]) -> list[Stale]:
    """Every dotted module path of the prose (`assets.runs.assemble`, `pipelines.cli:main`) that names no module of
    the repository, or an attribute its module does not define."""
    stale = []
    for piece in prose:
        for line, word in words(piece):
            token = _clean(word)
            if MODULE_TOKEN.match(token) and not token.endswith(tuple(KNOWN_SUFFIXES)):
                why = module_problem(repository, token)
                if why:
                    stale.append(Stale(piece.path, line, token, why))
    return sorted(set(stale))


def module_problem(repository: Repository, token: str) -> str | None:
    dotted, _, attribute = token.partition(":")
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        base = "/".join(parts[:end])
        module = next((m for m in (f"{base}.py", f"{base}/__init__.py") if repository.has(m)), None)
        if module is None and not (end > 1 and repository.has(base)):
            continue
        rest = parts[end:] + (attribute.split(".") if attribute else [])
        if not rest:
            return None
        if module and _defines(repository, module, rest):
            return None
        name = ".".join(parts[:end])
        if module and len(rest) > 1 and _defines(repository, module, rest[:1]):
            return f"{module} defines {rest[0]}, but {rest[0]} has no {rest[1]}"
        where = module or f"{base}/ (a folder without __init__.py)"
        return f"no module {name}.{rest[0]} in the repository, and {where} defines no {rest[0]}"
    return f"no module {dotted} in the repository"


@cache
def _top_level(source: str) -> dict[str, ast.AST]:
    """The names a module defines at its top level (functions, classes, assignments, imports), with their node."""
    names: dict[str, ast.AST] = {}
    tree = ast.parse(source)
    for node in _flat(tree.body):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names[node.name] = node
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for leaf in ast.walk(target):
                    if isinstance(leaf, ast.Name):
                        names[leaf.id] = node
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                names[(alias.asname or alias.name).split(".")[0]] = node
    return names


def _flat(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements, with those under a top-level if/try (TYPE_CHECKING, optional imports) flattened in."""
    for node in body:
        yield node
        if isinstance(node, ast.If | ast.Try):
            for block in (node.body, node.orelse, *(h.body for h in getattr(node, "handlers", []))):
                yield from _flat(block)


def _defines(repository: Repository, module: str, names: list[str]) -> bool:
    """Whether the module's source defines names[0] (and names[1] in it, when names[0] is a class); a name with
    a glob (`test_sweep_*`) must match at least one."""
    defined = _top_level(repository.source(module))
    matches = [n for n in defined if fnmatch.fnmatchcase(n, names[0])]
    if not matches:
        return False
    node = defined[matches[0]]
    if len(names) > 1 and isinstance(node, ast.ClassDef):
        members = {getattr(m, "name", None) for m in node.body if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)}
        members |= {t.id for m in node.body if isinstance(m, ast.Assign | ast.AnnAssign) for t in _targets(m)}
        return any(fnmatch.fnmatchcase(str(m), names[1]) for m in members if m)
    return True


def _targets(node: ast.Assign | ast.AnnAssign) -> list[ast.Name]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return [leaf for t in targets for leaf in ast.walk(t) if isinstance(leaf, ast.Name)]


# -- Markdown links ---------------------------------------------------------------------------------------------

INLINE_LINK = re.compile(r"\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s+.*)?$")


def markdown_links(text: str) -> Iterator[tuple[int, str]]:
    """Each link target of a Markdown page with its line, outside code (fenced blocks and backticked spans)."""
    for number, line, fenced in markdown_lines(text):
        if fenced:
            continue
        line = CODE_SPAN.sub("", line)
        definition = REFERENCE_DEFINITION.match(line)
        if definition:
            yield number, definition.group(1)
            continue
        for match in INLINE_LINK.finditer(line):
            yield number, match.group(2)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text as shown (links by their text, no code marks nor tags), in lower
    case, punctuation other than '-' and '_' dropped, each space a '-'."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text).replace("`", "")
    text = re.sub(r"(\*\*|__|\*)(.+?)\1", r"\2", text)
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """The anchors of a Markdown page: one per heading (a repeated slug gets -1, -2, ...) and explicit ids."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for _number, line, fenced in markdown_lines(text):
        if fenced:
            continue
        heading = re.match(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            base = slug(heading.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
        found |= set(re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", line))
    return found


def broken_links(repository: Repository, pages: Iterable[str] | None = None) -> list[Stale]:
    """Every link of the repository's Markdown pages whose file or anchor is not there (web links not fetched)."""
    stale = []
    for page in sorted(pages if pages is not None else (f for f in repository.files if f.endswith(".md"))):
        for line, target in markdown_links(repository.source(page)):
            why = link_problem(repository, page, target)
            if why:
                stale.append(Stale(page, line, target, why))
    return stale


def link_problem(repository: Repository, page: str, target: str) -> str | None:
    if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:, ...
        return None
    path, _, anchor = target.partition("#")
    if path:
        resolved = posixpath.normpath(
            path.lstrip("/") if path.startswith("/") else posixpath.join(posixpath.dirname(page), path)
        )
        if resolved.startswith("../"):
            return f"{resolved}: outside the repository (link a page of the repository)"
        if not repository.has(resolved):
            return f"{resolved}: no such file or folder in the repository"
    else:
        resolved = page
    if anchor and resolved.endswith(".md") and resolved in repository.files:
        if anchor.lower() not in anchors(repository.source(resolved)):
            return f"{resolved} has no heading with the anchor #{anchor}"
    return None


def readme_too_long(repository: Repository, limit: int = 250) -> list[Stale]:
    lines = len(repository.source("README.md").splitlines()) if repository.has("README.md") else 0
    if lines <= limit:
        return []
    return [Stale("README.md", lines, f"{lines} lines", f"at most {limit}: the rest belongs in docs/")]
