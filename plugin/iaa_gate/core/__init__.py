"""The ground floor: errors, atomic files and redaction, used by every layer above."""
