"""Evaluation: coefficients per field, ground truth, the gate, the report document and trends."""
