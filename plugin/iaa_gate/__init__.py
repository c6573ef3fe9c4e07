"""iaa-gate: inter-annotator agreement as a quality gate for labeling rounds."""

__version__ = "0.1.0"
