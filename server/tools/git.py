"""Git at symbol level: state, symbol diffs, a symbol at any revision, commits with context,
recovery through safe points, conflict steps and a bisect in a separate worktree.

Thin: each tool checks its arguments (paths through `repo_path`, symbols through `symbol_ref`;
revisions are verified by git itself) and calls the indexer's git modules. A bad revision is
an argument error naming the field; a refused operation is a tool error saying what to do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from ..app import App
from ._answer import DESTRUCTIVE, READ_ONLY, WRITES, Answer, Model, freshness, invalid, repo_path, symbol_ref

T = TypeVar("T")
MAX_REF_CHARS = 1024


class ChangedSymbol(Model):
    id: str
    qualname: str
    path: str
    kind: str
    status: Literal["added", "modified"]
    before_hash: str | None = Field(description="Hash of the symbol's syntax at BASE (None when added).")
    after_hash: str
    changed: Literal["signature", "body", "both"] | None = Field(description="What changed, for a modified symbol.")
    signature: str | None
    start_line: int
    end_line: int


class DeletedSymbol(Model):
    id: str
    qualname: str
    path: str
    kind: str
    before_hash: str


class RenamedSymbol(Model):
    from_: str = Field(alias="from", description="The symbol's id at BASE.")
    to: str = Field(description="Its id at TARGET.")
    from_path: str
    to_path: str
    from_qualname: str
    to_qualname: str
    kind: str
    similarity: float = Field(description="1.0: identical body; less: by token similarity.")
    also_modified: bool
    changed: Literal["signature", "body", "both"] | None
    before_hash: str
    after_hash: str
    start_line: int
    end_line: int

    model_config = {"populate_by_name": True}


class DiffAnswer(Answer):
    base: str
    base_commit: str | None
    target: str
    target_commit: str | None = Field(description="None for WORKTREE and INDEX.")
    files_changed: int
    changed_symbols: list[ChangedSymbol]
    deleted_symbols: list[DeletedSymbol]
    renamed_symbols: list[RenamedSymbol] = Field(description="Renames and moves, within and across files.")
    unparsed_files: list[dict[str, str]]
    tests_affected: list[str]
    confidence: float = Field(description="0..1; confidence_notes say why it is below 1.")
    confidence_notes: list[str]


class StateAnswer(Answer):
    branch: str | None = Field(description="None on a detached HEAD.")
    head_commit: str | None
    upstream: str | None
    ahead: int
    behind: int
    clean: bool
    operation_in_progress: str | None = Field(description="merge, rebase, cherry-pick, revert or bisect.")
    status_summary: dict[str, int] = Field(
        description="staged, modified, added, deleted, renamed, untracked, unmerged."
    )
    unmerged_files: list[str]
    stale_symbols: list[dict[str, Any]] = Field(
        description="Indexed symbols that differ from the work tree or from HEAD, each with its reasons."
    )
    stale_count: int
    stale_truncated: bool


class SymbolAtAnswer(Answer):
    id: str = Field(description="The symbol's id at that revision (its name then, after renames and moves).")
    asked: str
    rev: str
    commit: str
    path: str
    qualname: str
    kind: str
    signature: str | None
    start_line: int
    end_line: int
    source: str
    renamed: bool


class SafePoint(Model):
    name: str
    ref: str
    commit: str
    head: str | None
    branch: str | None
    index: str | None = Field(description="The commit holding what was staged (None when it had conflicts).")
    reason: str
    untracked: int
    created_at: str
    how_to_restore: str


class CommitAnswer(Answer):
    commit: str
    title: str
    message: str
    changed_symbols: list[str]
    tests_affected: list[str]
    safe_point: SafePoint
    pushed: bool = Field(description="Always false: annals never pushes.")


class RecoverAnswer(Answer):
    action: str
    safe_point: SafePoint = Field(description="The state just before this step, saved first.")
    how_to_undo: str
    detail: dict[str, Any] = Field(description="What the action did (restored, discarded, from/to...).")


class SafePointsAnswer(Answer):
    safe_points: list[SafePoint] = Field(description="Newest first.")


class ConflictAnswer(Answer):
    operation: str | None
    strategy: str
    resolved: list[str]
    remaining_conflicts: list[str]
    markers: dict[str, int] = Field(description="Conflict blocks left per file still in conflict.")
    next_action: str
    notes: str
    warning: str | None = None
    safe_point: SafePoint | None = None


class BisectAnswer(Answer):
    first_bad_commit: str | None
    title: str | None
    good: str
    bad: str
    steps: list[dict[str, Any]] = Field(
        description="commit, verdict (good, bad, skip, timeout, stop), exit code, seconds."
    )
    stopped: str | None = Field(description="Why there is no answer, when there is none.")
    checkout_touched: bool


@contextmanager
def _refusals(ref_field: str | None = None) -> Iterator[None]:
    """A bad revision is the caller's argument error; a refused operation is a tool error."""
    from ...hooks.gitops import OperationRefused
    from ...hooks.safepoints import RecoverError
    from ...indexer.git.gitcmd import BadRef, GitError
    from ...indexer.git.staged import UnmergedIndex

    try:
        yield
    except BadRef as exc:
        if ref_field is None:
            raise ToolError(str(exc)) from exc
        invalid(ref_field, str(exc))
    except (OperationRefused, RecoverError, UnmergedIndex, GitError) as exc:
        raise ToolError(str(exc)) from exc


def _git_root(app: App) -> Path:
    from ...indexer.git.gitcmd import repo_top

    top = repo_top(app.root)
    if top is None:
        raise ToolError(f"{app.root} is not a git repository; these tools need one (`git init`)")
    return top.resolve()


def _ref(value: str, field: str) -> str:
    text = value.strip()
    if not text or text.startswith("-") or any(c in text for c in "\0\n\r"):
        invalid(field, "send a branch, tag or commit id (not empty, no leading '-', no control characters)")
    if len(text) > MAX_REF_CHARS:  # past 128 KiB the kernel refuses git's argv (E2BIG): a crash, not an answer
        invalid(field, f"no branch, tag or commit id is that long; send one under {MAX_REF_CHARS} characters")
    return text


def register(server: MCPServer, app: App) -> None:
    def run(call: Callable[[Path], T], ref_field: str | None = None) -> T:
        root = _git_root(app)
        with _refusals(ref_field):
            return call(root)

    @server.tool(annotations=READ_ONLY, title="Git state")
    def git_get_state() -> StateAnswer:
        """Branch, HEAD, whether the work tree is clean, counts of what is uncommitted, any operation in
        progress, and the indexed symbols that are stale against the work tree or HEAD, with reasons."""
        from ...indexer.git.gitstate import git_state

        state = run(lambda root: git_state(root, app.conn(), source="mcp"))
        state.pop("index", None)
        return StateAnswer(**state, freshness=freshness(app))

    @server.tool(annotations=READ_ONLY, title="Symbol diff between revisions")
    def git_diff_symbols(
        base: Annotated[str, Field(description="A branch, tag or commit id.")],
        target: Annotated[
            str,
            Field(description="A branch, tag or commit id, INDEX (what is staged) or WORKTREE (the files on disk)."),
        ] = "HEAD",
        include_untracked: Annotated[bool, Field(description="With WORKTREE: untracked files count as added.")] = False,
    ) -> DiffAnswer:
        """Symbols changed (signature, body or both), added, deleted and renamed or moved between two
        revisions; tests affected; how confident the answer is. Layout and comments never count."""
        from ...indexer.git.symdiff import diff_symbols

        base_ref, target_ref = _ref(base, "base"), _ref(target, "target")

        def diff(root: Path) -> dict[str, Any]:
            from ...indexer.git.symdiff import resolve

            with _refusals("base"):
                resolve(root, base_ref, "base")
            with _refusals("target"):
                resolve(root, target_ref, "target")
            return diff_symbols(
                root, app.conn(), base_ref, target_ref, include_untracked=include_untracked, source="mcp"
            )

        return DiffAnswer(**run(diff), freshness=freshness(app))

    @server.tool(annotations=READ_ONLY, title="A symbol at a revision")
    def symbol_at(
        symbol: Annotated[
            str,
            Field(
                description="A symbol id ('path/mod.py::Class.method') or qualified name, "
                "as it is named now (or was named at that revision)."
            ),
        ],
        rev: Annotated[str, Field(description="A branch, tag or commit id (HEAD~3 works).")],
    ) -> SymbolAtAnswer:
        """The symbol's source at any revision, found under the name it had then (renames and moves are
        followed through recorded history: `annals index --history` records it)."""
        from ...indexer.git.githistory import symbol_at as lookup

        ref, revision = symbol_ref(app, symbol), _ref(rev, "rev")
        found = run(lambda root: lookup(root, app.conn(), ref, revision), "rev")
        return SymbolAtAnswer(**found, freshness=freshness(app))

    @server.tool(annotations=WRITES, title="Commit with context")
    def git_commit_with_context(
        type: Annotated[
            Literal["feat", "fix", "refactor", "perf", "test", "docs", "build", "ci", "chore", "style", "revert"],
            Field(description="The kind of change."),
        ],
        agent_id: Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$", description="Who commits.")],
        goal: Annotated[str, Field(min_length=1, max_length=100, description="The goal summary, one line.")],
        goal_id: Annotated[str | None, Field(max_length=100, description="The goal's id.")] = None,
        requirement_tags: Annotated[list[str] | None, Field(description="Requirement tags such as 'AUTH-12'.")] = None,
        risk: Literal["low", "medium", "high"] = "low",
        body: Annotated[str | None, Field(max_length=10_000, description="A paragraph after the title.")] = None,
        auto_push: Annotated[bool, Field(description="Refused when true: annals never pushes.")] = False,
    ) -> CommitAnswer:
        """Commit what is staged as `type(agent_id): goal` with trailers Goal-Id, Agent-Id, Requirement-Tags,
        Risk, Changed-Symbols and Tests-Affected. A safe point is saved first; the commit is recorded."""
        from ...hooks.gitops import commit_with_context

        result = run(
            lambda root: commit_with_context(
                root,
                app.conn(),
                type=type,
                agent_id=agent_id,
                goal=goal,
                goal_id=goal_id,
                requirement_tags=requirement_tags,
                risk=risk,
                body=body,
                auto_push=auto_push,
                source="mcp",
            )
        )
        return CommitAnswer(**result, freshness=freshness(app))

    @server.tool(annotations=DESTRUCTIVE, title="Recover a safe state")
    def git_recover_state(
        action: Annotated[
            Literal["checkout_safe_point", "undo_uncommitted", "restore_branch"],
            Field(
                description="checkout_safe_point: HEAD, index and files as at a safe point; "
                "undo_uncommitted: drop uncommitted changes and untracked files; "
                "restore_branch: move a branch back (reflog, a commit or a safe point)."
            ),
        ],
        name: Annotated[str | None, Field(description="checkout_safe_point: the safe point's name.")] = None,
        branch: Annotated[str | None, Field(description="restore_branch: the branch.")] = None,
        to: Annotated[
            str | None,
            Field(
                description="restore_branch: a commit or safe point name (default: where "
                "the branch was before its last move)."
            ),
        ] = None,
    ) -> RecoverAnswer:
        """Get back to a safe state without losing work: the present state, uncommitted and untracked files
        included, is saved as a safe point first, and the answer says how to get it back."""
        from ...hooks.safepoints import recover

        if action == "checkout_safe_point" and not name:
            invalid("name", "checkout_safe_point needs the safe point's name (git_safepoints lists them)")
        if action == "restore_branch" and not branch:
            invalid("branch", "restore_branch needs the branch to move back")
        for field, value in (("name", name), ("branch", branch), ("to", to)):
            if value is not None:
                _ref(value, field)
        result = run(
            lambda root: recover(root, app.conn(), action, name=name, branch=branch, to=to, source="mcp"),
            "to" if to else "branch" if branch else "name",
        )
        saved, undo = result.pop("safe_point"), result.pop("how_to_undo")
        return RecoverAnswer(
            action=result.pop("action"),
            safe_point=SafePoint(**saved),
            how_to_undo=undo,
            detail=result,
            freshness=freshness(app),
        )

    @server.tool(annotations=READ_ONLY, title="Safe points")
    def git_safepoints() -> SafePointsAnswer:
        """The safe points saved before risky steps, newest first, each with how to restore it."""
        from ...hooks.safepoints import list_safepoints

        return SafePointsAnswer(safe_points=[SafePoint(**p) for p in run(list_safepoints)], freshness=freshness(app))

    @server.tool(annotations=DESTRUCTIVE, title="Resolve a conflict")
    def git_resolve_conflict(
        strategy: Annotated[
            Literal["abort", "manual_review", "ours", "theirs", "skip"],
            Field(
                description="abort the operation; manual_review: report conflicts and mark files "
                "without markers resolved; ours / theirs: take one side; skip: skip "
                "the commit being replayed (rebase, cherry-pick, revert)."
            ),
        ],
        files: Annotated[
            list[str] | None, Field(description="Repository-relative paths (default: every conflicted file).")
        ] = None,
        notes: Annotated[str, Field(max_length=5_000, description="Why: kept with the event.")] = "",
    ) -> ConflictAnswer:
        """One step on a merge, rebase, cherry-pick or revert conflict: what is resolved, what remains, and the
        next action to take. Steps that drop work save a safe point first."""
        from ...hooks.gitops import resolve_conflict

        checked = [repo_path(app, f, "files") for f in files or []]
        result = run(
            lambda root: resolve_conflict(root, app.conn(), files=checked, strategy=strategy, notes=notes, source="mcp")
        )
        saved = result.pop("safe_point", None)
        return ConflictAnswer(**result, safe_point=SafePoint(**saved) if saved else None, freshness=freshness(app))

    @server.tool(annotations=WRITES, title="Bisect")
    def git_bisect_start(
        good: Annotated[str, Field(description="A commit where the test passes.")],
        bad: Annotated[str, Field(description="A later commit where it fails.")],
        test_command: Annotated[
            list[str],
            Field(
                min_length=1,
                description="The test as an argument list, run "
                "without a shell in the worktree: exit 0 good, 125 skip, 1-127 bad.",
            ),
        ],
        timeout_seconds: Annotated[float, Field(gt=0, le=3600, description="For the whole bisect.")] = 600,
    ) -> BisectAnswer:
        """Find the first bad commit between good and bad by running the test at each step, in a separate
        git worktree (the user's checkout is never touched), bounded in time."""
        from ...hooks.gitops import bisect
        from ...indexer.git.gitcmd import verify_commit

        good_ref, bad_ref = _ref(good, "good"), _ref(bad, "bad")

        def search(root: Path) -> dict[str, Any]:
            for field, value in (("good", good_ref), ("bad", bad_ref)):
                with _refusals(field):
                    verify_commit(root, value, field)
            return bisect(root, good_ref, bad_ref, test_command, timeout_seconds=timeout_seconds)

        result = run(search)
        result.pop("worktree_used", None)
        return BisectAnswer(**result, freshness=freshness(app))
