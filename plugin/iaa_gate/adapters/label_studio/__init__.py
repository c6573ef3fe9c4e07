"""Label Studio: the labeling config, the API client, the export and live-project readers."""
