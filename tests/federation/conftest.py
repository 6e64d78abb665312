"""The TypeScript client's build, shared with the end-to-end tests (npm ci and npm run build, once)."""

from ..e2e.conftest import typescript_bot  # noqa: F401  (a fixture)
