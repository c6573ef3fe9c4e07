"""Names vulture (the dead-code step of .ci/run) cannot see used: called by Python or a framework,
loaded by name, or data a user reads. Dead code goes; it is not listed here."""

# Python calls them: the lazy public API of iaa_gate/__init__ and a Distance's __call__
__getattr__
__dir__
__call__

# entry points: cli.main (callers in process, the tests), Starlette's lifespan(app) signature
main
app

# report writers, imported by name from sinks/report.WRITERS
DisputedTasksWriter
JUnitWriter
MarkdownWriter

# report fields, written by msgspec's encoder (evaluation/document.py)
description
rate
file
standard_error
alpha_undefined_reason
categories_undefined
n_agreed
n_disputed
n_too_few
schema_version
input
p_value_undefined_reason
measure
n_humans_tested
model_versions
relation
relations_f1
references
gold_tasks
in_agreement
predicted_tasks
reference
consensus_tasks
disputed_examples
consensus_lines
already_done
failed_tasks
skipped_tasks
view_title
view_error
more_tasks
n_adjudicated
proposal_confirmed
proposal_compared

# results a user reads: metrics' result fields, InputError.structured

# the typed report back from a report.json, and as JSON data (docs/reports.md, docs/api.md)
decode_report
document
pairable_units
log_likelihood
pairs_used
pairs_skipped
ambiguous
duplicates
structured

# used only by tests, in folders other work of issue 28 is rewriting (_api.py, serve/): left to it
LONG_COLUMNS
annotator_rows

# the typed readers' answer fields, read by each kind's value_key (getattr, attrgetter)
choices
rating
rectanglelabels
polygonlabels
keypointlabels
hypertextlabels
paragraphlabels
htmllabels
brushlabels
taxonomy
ranker

# the overlap summary's audit share, set by keyword and written by msgspec (evaluation/overlap.py)
audit_share

# keys of Label Studio's JSON (adapters/label_studio/wire.py, the SDK's request options) and of
# the flag in a task's meta (sinks/label_studio.py), and of --json's answer (cli.JsonSummary),
# written in dict literals or by msgspec
max_retries
timeout_in_seconds
is_labeled
send_payload
send_for_all_actions
conjunction
ordering
columnsDisplayType
consensus_prediction
alpha_change
ground_truth_lowest
exit_code

# keys of a Label Studio value the typed reader reads by their kind's name (label_studio/typed.py)
timeserieslabels
rectangle
polygon
keypoint
brush
image
spans
