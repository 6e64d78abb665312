"""gRPC services: AgentService (play), ArenaService (admin and results), SpectatorService."""
