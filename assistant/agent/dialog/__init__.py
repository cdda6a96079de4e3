"""The dialog loop: history within a budget, the model, tools in a bounded loop, the answer."""
