"""Rule candidates compiled into data: the three predicates, evaluated without generated code.

A rule names one guarded tool. ``applies_when`` lists argument predicates that must all hold
for the rule to apply; ``requires`` lists what must then hold for the call to proceed. The
predicates are argument presence, exact typed equality and approval-required. Compilation turns
a validated candidate into frozen dataclasses; evaluation walks them. Nothing is ever passed to
eval, exec or compile, so a candidate's text can only ever be compared, never run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from revetly_core.governed.guarded_tools import canonical_json, check_tool_name
from revetly_core.refusal import Refusal

MAX_PREDICATES = 16
MAX_SOURCES = 16
MAX_TEXT = 2000
MAX_PROFILE_KEYS = 32
MAX_PROFILE_VALUE = 500
MAX_EQUALITY_VALUE = 2000
"""Bounds of a candidate: a typed-equality value's canonical JSON is at most 2,000 characters."""

Decision = Literal["allow", "deny", "needs_approval"]


class MemorySourceRef(BaseModel):
    """A canonical-memory source a proposal rests on: one CONTEXT artifact by id."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["memory"]
    artifact_id: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z][A-Za-z0-9]*-[0-9A-Za-z]+$")


class ArgumentPresent(BaseModel):
    """Holds when the call's arguments carry this top-level name (any value, null included)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["argument_present"]
    argument: str = Field(min_length=1, max_length=64)


class ArgumentEquals(BaseModel):
    """Holds when the argument is present and equal to value as typed JSON (1 is not "1" nor true)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["argument_equals"]
    argument: str = Field(min_length=1, max_length=64)
    value: Any


class ApprovalRequired(BaseModel):
    """Holds when the call carries a human approval (the application says so; a model cannot)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["approval_required"]


Predicate = Annotated[ArgumentPresent | ArgumentEquals | ApprovalRequired, Field(discriminator="kind")]
ArgumentPredicate = Annotated[ArgumentPresent | ArgumentEquals, Field(discriminator="kind")]


class RuleCandidate(BaseModel):
    """What a model may propose as a rule: a tool, when it applies, what it then requires."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    title: str = Field(min_length=1, max_length=300)
    tool: str
    applies_when: list[ArgumentPredicate] = Field(default_factory=list, max_length=MAX_PREDICATES)
    requires: list[Predicate] = Field(min_length=1, max_length=MAX_PREDICATES)
    rationale: str = Field(default="", max_length=MAX_TEXT)
    sources: list[MemorySourceRef] = Field(min_length=1, max_length=MAX_SOURCES)


ProfileValue = Annotated[str, Field(max_length=MAX_PROFILE_VALUE)] | int | bool


class ProfileCandidate(BaseModel):
    """What a model may propose as a profile: a bounded map of named preferences."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    title: str = Field(min_length=1, max_length=300)
    settings: dict[Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")], ProfileValue] = Field(
        min_length=1, max_length=MAX_PROFILE_KEYS)
    rationale: str = Field(default="", max_length=MAX_TEXT)
    sources: list[MemorySourceRef] = Field(min_length=1, max_length=MAX_SOURCES)


def _candidate_refusal(exc: ValidationError, what: str, shape: str) -> Refusal:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or f"({what})"
    return Refusal("bad-candidate", f"{what} {where}: {first['msg']}", f"send {shape}")


def parse_rule_candidate(data: object) -> RuleCandidate:
    """A rule candidate from untrusted JSON, or the bad-candidate refusal naming the field."""
    try:
        candidate = RuleCandidate.model_validate(data)
    except ValidationError as exc:
        raise _candidate_refusal(exc, "rule", "{title, tool, applies_when?, requires, rationale?, "
                                 "sources: [{kind: memory, artifact_id}]}") from None
    check_tool_name(candidate.tool)
    for predicate in (*candidate.applies_when, *candidate.requires):
        too_large = isinstance(predicate, ArgumentEquals) and \
            len(canonical_json(predicate.value)) > MAX_EQUALITY_VALUE
        if isinstance(predicate, ArgumentEquals) and too_large:
            raise Refusal("bad-candidate", f"the value compared with {predicate.argument!r} is too large",
                          f"compare with a value of at most {MAX_EQUALITY_VALUE} characters of JSON")
    return candidate


def parse_profile_candidate(data: object) -> ProfileCandidate:
    """A profile candidate from untrusted JSON, or the bad-candidate refusal naming the field."""
    try:
        return ProfileCandidate.model_validate(data)
    except ValidationError as exc:
        raise _candidate_refusal(exc, "profile", "{title, settings: {name: text|int|bool}, "
                                 "rationale?, sources: [{kind: memory, artifact_id}]}") from None


# ---- compiled form: plain data ----

@dataclass(frozen=True)
class Present:
    """Compiled argument presence."""

    argument: str


@dataclass(frozen=True)
class Equals:
    """Compiled typed equality: the expected value kept as its canonical JSON text."""

    argument: str
    expected_json: str


@dataclass(frozen=True)
class Approval:
    """Compiled approval-required."""


CompiledPredicate = Present | Equals | Approval


@dataclass(frozen=True)
class CompiledRule:
    """A rule as data: the tool it guards, when it applies, what it then requires."""

    tool: str
    applies_when: tuple[CompiledPredicate, ...]
    requires: tuple[CompiledPredicate, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"tool": self.tool, "applies_when": [predicate_dict(p) for p in self.applies_when],
                "requires": [predicate_dict(p) for p in self.requires]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CompiledRule:
        return cls(data["tool"], tuple(predicate_from_dict(p) for p in data["applies_when"]),
                   tuple(predicate_from_dict(p) for p in data["requires"]))


def predicate_dict(predicate: CompiledPredicate) -> dict[str, Any]:
    """The stored form of a compiled predicate."""
    if isinstance(predicate, Present):
        return {"kind": "argument_present", "argument": predicate.argument}
    if isinstance(predicate, Equals):
        return {"kind": "argument_equals", "argument": predicate.argument,
                "expected_json": predicate.expected_json}
    return {"kind": "approval_required"}


def predicate_from_dict(data: dict[str, Any]) -> CompiledPredicate:
    """A compiled predicate read back from its stored form."""
    if data["kind"] == "argument_present":
        return Present(str(data["argument"]))
    if data["kind"] == "argument_equals":
        return Equals(str(data["argument"]), str(data["expected_json"]))
    return Approval()


def compile_predicate(predicate: ArgumentPresent | ArgumentEquals | ApprovalRequired) -> CompiledPredicate:
    """One validated predicate as data (the expected value frozen as canonical JSON)."""
    if isinstance(predicate, ArgumentPresent):
        return Present(predicate.argument)
    if isinstance(predicate, ArgumentEquals):
        return Equals(predicate.argument, canonical_json(predicate.value))
    return Approval()


def compile_rule(candidate: RuleCandidate) -> CompiledRule:
    """A validated rule candidate compiled into data; no code is generated or run."""
    return CompiledRule(candidate.tool, tuple(compile_predicate(p) for p in candidate.applies_when),
                        tuple(compile_predicate(p) for p in candidate.requires))


def typed_equal(observed: object, expected_json: str) -> bool:
    """Exact typed equality: the same canonical JSON (so 1 != 1.0 != "1" != true)."""
    return canonical_json(observed) == expected_json


def predicate_holds(predicate: CompiledPredicate, arguments: dict[str, Any], approved: bool) -> bool:
    """Whether one compiled predicate holds for a call's arguments and its approval."""
    if isinstance(predicate, Present):
        return predicate.argument in arguments
    if isinstance(predicate, Equals):
        return predicate.argument in arguments and typed_equal(arguments[predicate.argument],
                                                               predicate.expected_json)
    return approved


def evaluate_rule(rule: CompiledRule, tool: str, arguments: dict[str, Any], *, approved: bool = False,
                  native_veto: bool = False) -> Decision:
    """allow, deny or needs_approval for one call; a native guard veto always wins (deny)."""
    if native_veto:
        return "deny"
    if tool != rule.tool or not all(predicate_holds(p, arguments, approved) for p in rule.applies_when):
        return "allow"
    failing = [p for p in rule.requires if not predicate_holds(p, arguments, approved)]
    if not failing:
        return "allow"
    return "needs_approval" if all(isinstance(p, Approval) for p in failing) else "deny"
