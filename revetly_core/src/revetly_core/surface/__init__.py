"""The served surface: tool catalogue, prompts, resources, project binding and retired names."""

from revetly_core.surface.arguments import (
    describe_schema,
    invalid_argument_refusal,
    unknown_argument_refusal,
)
from revetly_core.surface.binding import address_project, declared_binding, state_project
from revetly_core.surface.catalogue import REVIEW_APP_URI, TOOLS, CliTwin, ToolSpec, tool_spec
from revetly_core.surface.prompts import (
    PROMPTS,
    PromptSpec,
    host_command_files,
    prompt_request_refusal,
    prompt_text,
)
from revetly_core.surface.resources import (
    BRIEF_URI_TEMPLATE,
    HEALTH_URI,
    RESOURCE_MIME,
    REVIEW_URI_TEMPLATE,
    SURFACE_URI,
    resource_refusal,
)
from revetly_core.surface.retired import (
    RETIRED_ARGUMENTS,
    RETIRED_TOOLS,
    retired_argument_refusal,
    retired_tool_refusal,
)
from revetly_core.surface.reviewer import app_only_answer, dismissed_review
from revetly_core.surface.surface import Surface, is_declaration_refusal
from revetly_core.surface.tool_arguments import ToolArguments

__all__ = [
    "BRIEF_URI_TEMPLATE",
    "HEALTH_URI",
    "PROMPTS",
    "RESOURCE_MIME",
    "RETIRED_ARGUMENTS",
    "RETIRED_TOOLS",
    "REVIEW_APP_URI",
    "REVIEW_URI_TEMPLATE",
    "SURFACE_URI",
    "TOOLS",
    "CliTwin",
    "PromptSpec",
    "Surface",
    "ToolArguments",
    "ToolSpec",
    "address_project",
    "app_only_answer",
    "declared_binding",
    "describe_schema",
    "dismissed_review",
    "host_command_files",
    "invalid_argument_refusal",
    "is_declaration_refusal",
    "prompt_request_refusal",
    "prompt_text",
    "resource_refusal",
    "retired_argument_refusal",
    "retired_tool_refusal",
    "state_project",
    "tool_spec",
    "unknown_argument_refusal",
]
