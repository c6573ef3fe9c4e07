"""``iaa-gate serve``: live agreement for a Label Studio project, fed by its webhooks.

A layer above the pipeline, like the CLI: it reuses the Label Studio reading rules
(:func:`~iaa_gate.adapters.label_studio.export.parse_tasks`), the evaluation and gate
(:func:`~iaa_gate.pipeline.evaluate`), the report renderers and the Label Studio write-back sink.
Needs ``iaa-gate[serve]`` (Starlette on uvicorn); the batch command never imports this package.

- :mod:`.events`: a webhook body → operations on the state;
- :mod:`.state`: the SQLite (WAL) state: inbox, annotations, tasks, flags written;
- :mod:`.service`: the worker that applies events, re-scores, writes flags and gates;
- :mod:`.app`: the ASGI app (``/webhook``, ``/report.json``, ``/``, ``/healthz``, ``/metrics``);
- :mod:`.hook`: registering the project's webhook through the SDK.
"""
