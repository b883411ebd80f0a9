"""Where an instance lives and where its engine state goes (.revetly/, git-ignored)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from revetly_core.config import CONFIG_FILE
from revetly_core.refusal import Refusal

ENV_INSTANCE = "REVETLY_INSTANCE"
STATE_DIR = ".revetly"


@dataclass(frozen=True)
class InstancePaths:
    """The files of one instance and of its CONTEXT."""

    root: Path

    @property
    def config(self) -> Path:
        return self.root / CONFIG_FILE

    @property
    def state(self) -> Path:
        return self.root / STATE_DIR

    @property
    def db(self) -> Path:
        return self.state / "context.db"

    @property
    def index(self) -> Path:
        return self.state / "index"

    @property
    def lock(self) -> Path:
        return self.state / "pass.lock"


def locate_instance(
    explicit: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> Path:
    """The instance root: --instance, then REVETLY_INSTANCE, then walking up from cwd."""
    env = os.environ if env is None else env
    for given, origin in ((explicit, "--instance"), (env.get(ENV_INSTANCE), ENV_INSTANCE)):
        if given:
            root = Path(given).expanduser().resolve()
            if not (root / CONFIG_FILE).is_file():
                raise Refusal(
                    "no-instance", f"{origin} points at {root}, which holds no {CONFIG_FILE}",
                    "point it at an instance folder, or create one with `revetly init PATH`",
                )
            return root
    here = (cwd or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / CONFIG_FILE).is_file():
            return folder
    raise Refusal(
        "no-instance", f"no {CONFIG_FILE} in {here} or any folder above it",
        f"pass --instance PATH, set {ENV_INSTANCE}, or create one with `revetly init PATH`",
    )
