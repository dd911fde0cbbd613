"""A faithful Python port of t9ksim's built-in GenericJob controller (controllers/, kind
GenericJob), for protocol version 1 (docs/plugins.md). `reconcile(params) -> result` is a pure
function of one reconcile request; `Reconcile` is its step, with hooks for mutants.

Modules: values (times, quantities, requests), pods (pods, PodGroups, replica phases), rules
(restart policies, back-off, success and failure rules, cleanup), status (conditions, the status
as written), reconcile (the stages of one reconcile).
"""
from .reconcile import Reconcile, reconcile

__all__ = ["Reconcile", "reconcile"]
