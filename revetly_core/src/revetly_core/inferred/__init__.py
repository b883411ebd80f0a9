"""The full instance's inferred half: graphiti-core over an embedded Kuzu graph, fed by the read
pass, read back through `store.inferred`. Importing this package loads neither graphiti-core nor
kuzu; `engine` does, and only a full instance opens it."""

from revetly_core.inferred.instance import is_full

__all__ = ["is_full"]
