"""``iaa-gate serve``: live agreement for a Label Studio project, fed by its webhooks.

A layer above the pipeline, like the CLI: it reuses the Label Studio reading rules
(:func:`~iaa_gate.adapters.label_studio.export.parse_tasks`), the evaluation and gate
(:func:`~iaa_gate.pipeline.evaluate`), the report renderers and the Label Studio write-back sink.
Needs ``iaa-gate[serve]`` (Starlette on uvicorn); the batch command never imports this package.

- :mod:`.events`: a webhook body → an event (parsed once, by the app);
- :mod:`.inbox`, :mod:`.state`: the SQLite (WAL) state: the event queue, annotations, tasks,
  flags written;
- :mod:`.apply`, :mod:`.read`: the queued events applied; the state read by the batch rules;
- :mod:`.counts`, :mod:`.field_sums`, :mod:`.live`, :mod:`.sums`: the running sums;
- :mod:`.flags`, :mod:`.tab`: the flags written, the Data Manager tab;
- :mod:`.report`, :mod:`.reconcile`: the debounced report and the gate; the project's pulls;
- :mod:`.service`: the worker that runs those jobs; :mod:`.metrics`: ``/metrics``;
- :mod:`.app`: the ASGI app (``/webhook``, ``/report.json``, ``/``, ``/healthz``, ``/metrics``);
- :mod:`.hook`: registering the project's webhook through the SDK.
"""
