"""What the model costs: every call held to its budgets and counted, then told and drawn."""
