"""Guarded network access: every outgoing request of a tool goes through one checked client."""

from assistant.net.addresses import AddressPolicy
from assistant.net.client import Fetched, GuardedClient, Limits
from assistant.net.resolver import Resolver, SystemResolver

__all__ = ["AddressPolicy", "Fetched", "GuardedClient", "Limits", "Resolver", "SystemResolver"]
