"""The served surface: tool catalogue, prompts, resources, project binding and retired names.

Names load from their modules on first use: the CLI reads the plain declarations
(`argument_specs`, `twins`) at start, and importing this package must not load the engine.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from revetly_core.surface.arguments import (
        describe_schema,
        invalid_argument_refusal,
        unknown_argument_refusal,
    )
    from revetly_core.surface.binding import address_project, declared_binding, state_project
    from revetly_core.surface.catalogue import REVIEW_APP_URI, TOOLS, ToolSpec, tool_spec
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
    from revetly_core.surface.twins import CliTwin

_MODULES = {
    "arguments": ("describe_schema", "invalid_argument_refusal", "unknown_argument_refusal"),
    "binding": ("address_project", "declared_binding", "state_project"),
    "catalogue": ("REVIEW_APP_URI", "TOOLS", "ToolSpec", "tool_spec"),
    "prompts": ("PROMPTS", "PromptSpec", "host_command_files", "prompt_request_refusal",
                "prompt_text"),
    "resources": ("BRIEF_URI_TEMPLATE", "HEALTH_URI", "RESOURCE_MIME", "REVIEW_URI_TEMPLATE",
                  "SURFACE_URI", "resource_refusal"),
    "retired": ("RETIRED_ARGUMENTS", "RETIRED_TOOLS", "retired_argument_refusal",
                "retired_tool_refusal"),
    "reviewer": ("app_only_answer", "dismissed_review"),
    "surface": ("Surface", "is_declaration_refusal"),
    "tool_arguments": ("ToolArguments",),
    "twins": ("CliTwin",),
}
_HOME = {name: module for module, names in _MODULES.items() for name in names}


def __getattr__(name: str) -> Any:
    """A public name, loaded from its module on first use."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'revetly_core.surface' has no attribute {name!r}")
    return getattr(import_module(f"revetly_core.surface.{module}"), name)


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
