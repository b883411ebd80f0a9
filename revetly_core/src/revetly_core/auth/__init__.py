"""Serving over HTTP: the address rule, token audience, the caller's principal, audit."""

from revetly_core.auth.address import check_address_rule, is_loopback_host
from revetly_core.auth.audience import audience_refusal, audiences_of, same_resource
from revetly_core.auth.audit import AuditLog, audit_line, audit_log_path, outcome_of, project_of
from revetly_core.auth.declared import DECLARED_LOGGER, DeclaredCounter, declared_line
from revetly_core.auth.endpoint import (
    METADATA_ROOT,
    bind_url,
    metadata_paths,
    metadata_url,
    resource_metadata,
    resource_url,
    transport_error_body,
)
from revetly_core.auth.grants import (
    check_grants,
    claim_values,
    grant_key,
    grant_project,
    granted_projects,
    no_grant_refusal,
)
from revetly_core.auth.served_surface import (
    ANONYMOUS,
    Caller,
    ServedSurface,
    is_write,
    read_only_refusal,
    served_call_arguments,
)
from revetly_core.auth.supervision import backoff_delay, next_attempt, should_restart
from revetly_core.auth.token_principal import (
    is_machine_token,
    principal_of_claims,
    subject_record,
    token_source,
)
from revetly_core.auth.token_report import token_report

__all__ = [
    "ANONYMOUS",
    "DECLARED_LOGGER",
    "METADATA_ROOT",
    "AuditLog",
    "Caller",
    "DeclaredCounter",
    "ServedSurface",
    "audience_refusal",
    "audiences_of",
    "audit_line",
    "audit_log_path",
    "backoff_delay",
    "bind_url",
    "check_address_rule",
    "check_grants",
    "claim_values",
    "declared_line",
    "grant_key",
    "grant_project",
    "granted_projects",
    "is_loopback_host",
    "is_machine_token",
    "is_write",
    "metadata_paths",
    "metadata_url",
    "next_attempt",
    "no_grant_refusal",
    "outcome_of",
    "principal_of_claims",
    "project_of",
    "read_only_refusal",
    "resource_metadata",
    "resource_url",
    "same_resource",
    "served_call_arguments",
    "should_restart",
    "subject_record",
    "token_report",
    "token_source",
    "transport_error_body",
]
