"""Fixtures shared with the end-to-end tests: the TypeScript client's build (npm ci and npm run build,
once), and the test CA of the TLS tests."""

from ..e2e.conftest import pki, typescript_bot  # noqa: F401  (fixtures)
