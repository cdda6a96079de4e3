"""Approvals: the request a turn asks, and the desk that stores, shows and answers it."""
