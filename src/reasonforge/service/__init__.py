"""Verification as a service: HTTP API, durable jobs, webhooks, API keys and billing."""
