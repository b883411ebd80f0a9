"""The five recurring gestures as instructions: served as MCP prompts, scaffolded as host commands."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from revetly_core.refusal import Refusal


@dataclass(frozen=True)
class PromptSpec:
    """One gesture: its name, its one argument, and the instructions it hands the model."""

    name: str
    title: str
    description: str
    argument: str
    argument_description: str
    template: str
    """The instructions; `{argument}` marks where the argument's value goes."""

    def render(self, value: str) -> str:
        """The instructions with the argument filled in."""
        return self.template.replace("{argument}", value.strip())


PROMPTS: tuple[PromptSpec, ...] = (
    PromptSpec(
        "revetly-ground", "Ground before work",
        "Read what was asked, what binds it and what shipped before starting on a task.",
        "task", "the task, story id or file you are about to work on",
        "Ground yourself in Revetly before working on: {argument}\n\n"
        "1. If it names an id, call get_artifact on it; otherwise call search_context with a few "
        "distinctive words from it.\n"
        "2. Call get_scope(question='binding') on the artifact (or the topic) to see the decisions, "
        "constraints and assumptions that already bind it; with a file path, ask "
        "get_scope(question='binding', path=...) which stories and decisions are behind it.\n"
        "3. Summarise what was asked (criteria), what binds it (cite each statement's id) and what "
        "is superseded, discarded or deleted, so you do not build on it.\n"
        "4. If an answer is empty, call context_health before concluding nothing exists.\n"
        "Do not write anything yet.",
    ),
    PromptSpec(
        "revetly-draft", "Draft a story",
        "Draft a new story grounded in the backlog and submit it for human review.",
        "intent", "what the story should achieve, in plain words",
        "Draft a story for: {argument}\n\n"
        "1. Call get_authoring_context with that intent (and a parent id if you know one).\n"
        "2. Write a title, a description and a list of acceptance criteria grounded in the bundle; "
        "cite the ids that informed it and contradict no binding statement.\n"
        "3. Call submit_draft with title, description and acceptance_criteria as a list (do not "
        "repeat the criteria inside the description).\n"
        "4. If the answer is awaiting-review or parked, report the review_id and stop: a second "
        "submit puts a second copy in front of the reviewer.",
    ),
    PromptSpec(
        "revetly-capture", "Capture a conversation",
        "Record what was discussed and decided as a conversation note.",
        "topic", "what the conversation was about",
        "Capture the conversation about: {argument}\n\n"
        "1. Write a short title and a body stating what was discussed, in the participants' terms.\n"
        "2. List each decision taken as an entry of decisions; name the ids it bears on in "
        "related_ids (search_context or get_artifact to find them).\n"
        "3. Call record_conversation, then poll context_health with the returned capture handle "
        "before reading the note back.",
    ),
    PromptSpec(
        "revetly-decide", "Record a decision",
        "Record a decision, naming what it supersedes or revises.",
        "decision", "the decision, in one sentence",
        "Record this decision: {argument}\n\n"
        "1. Call get_scope(question='binding') on the topic or the artifact it concerns, to find "
        "earlier decisions it replaces and the work items it changes.\n"
        "2. Call record_conversation with one decisions entry: list in supersedes only records "
        "this decision replaces whole; list in revises the work items (and criteria positions) it "
        "changes; name anything it merely bears on in related_ids.\n"
        "3. Report the record id and the capture handle.",
    ),
    PromptSpec(
        "revetly-ship", "Ship a work item",
        "Mark a work item done with a verdict per acceptance criterion.",
        "artifact_id", "the id of the work item being shipped",
        "Ship {argument}.\n\n"
        "1. Call get_artifact on {argument} and read its acceptance criteria.\n"
        "2. For each criterion, decide met, partial or not-met from what was actually built, with "
        "a one-line note.\n"
        "3. Call set_status with status 'done' and verdicts, one {criterion, verdict, note} per "
        "criterion in order.\n"
        "4. Report the delivery record the answer names.",
    ),
)

PROMPTS_BY_NAME = {spec.name: spec for spec in PROMPTS}


def prompt_request_refusal(name: str, arguments: Mapping[str, object] | None) -> Refusal | None:
    """Why a prompts/get cannot be answered (an unknown name, its argument missing), or None."""
    spec = PROMPTS_BY_NAME.get(name)
    if spec is None:
        return Refusal("unknown-prompt", f"no prompt is named {name!r}",
                       f"use one of: {', '.join(PROMPTS_BY_NAME)}",
                       {"prompt": name, "prompts": list(PROMPTS_BY_NAME)})
    given = (arguments or {}).get(spec.argument)
    if not isinstance(given, str) or not given.strip():
        return Refusal("missing-argument", f"prompt {name!r} needs its argument {spec.argument!r}",
                       f"pass {spec.argument}: {spec.argument_description}",
                       {"prompt": name, "argument": spec.argument})
    return None


def prompt_text(name: str, value: str) -> str:
    """The instructions of one prompt with its argument filled in; an unknown name is refused."""
    spec = PROMPTS_BY_NAME.get(name)
    if spec is None:
        refusal = prompt_request_refusal(name, None)
        assert refusal is not None
        raise refusal
    return spec.render(value)


def claude_command_file(spec: PromptSpec) -> str:
    """A Claude Code slash command (.claude/commands/NAME.md) carrying the same instructions."""
    return (f"---\ndescription: {spec.description}\nargument-hint: <{spec.argument}>\n---\n\n"
            + spec.render("$ARGUMENTS") + "\n")


def vscode_prompt_file(spec: PromptSpec) -> str:
    """A VS Code prompt file (.github/prompts/NAME.prompt.md) carrying the same instructions."""
    return (f"---\nmode: agent\ndescription: {spec.description}\n---\n\n"
            + spec.render("${input:" + spec.argument + "}") + "\n")


def host_command_files() -> dict[str, str]:
    """Every host command file `revetly init` writes: relative path -> text."""
    files: dict[str, str] = {}
    for spec in PROMPTS:
        files[f".claude/commands/{spec.name}.md"] = claude_command_file(spec)
        files[f".github/prompts/{spec.name}.prompt.md"] = vscode_prompt_file(spec)
    return files
