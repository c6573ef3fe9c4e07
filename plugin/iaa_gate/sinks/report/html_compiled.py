# Generated from templates/report.html.j2 by html.write_compiled(): do not edit.
FINGERPRINT = '4cd46d7a9e4fbf6a4e70773d3f527482f0d3de36d031ac11a8d5e06117af9068 jinja2 3.1.6'
from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'report.html.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_script_hash = resolve('script_hash')
    l_0_doc = resolve('doc')
    l_0_problems = resolve('problems')
    l_0_round_text = resolve('round_text')
    l_0_prev = resolve('prev')
    l_0_charts_available = resolve('charts_available')
    l_0_model_rows = resolve('model_rows')
    l_0_model_note = resolve('model_note')
    l_0_model_columns = resolve('model_columns')
    l_0_model_label_rows = resolve('model_label_rows')
    l_0_writeback = resolve('writeback')
    l_0_script = resolve('script')
    l_0_n = l_0_verdict = missing
    try:
        t_1 = environment.filters['format']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'format' found.")
    try:
        t_2 = environment.filters['int']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'int' found.")
    try:
        t_3 = environment.filters['join']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'join' found.")
    try:
        t_4 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    try:
        t_5 = environment.filters['list']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'list' found.")
    try:
        t_6 = environment.filters['num']
    except KeyError:
        @internalcode
        def t_6(*unused):
            raise TemplateRuntimeError("No filter named 'num' found.")
    try:
        t_7 = environment.filters['rejectattr']
    except KeyError:
        @internalcode
        def t_7(*unused):
            raise TemplateRuntimeError("No filter named 'rejectattr' found.")
    try:
        t_8 = environment.filters['replace']
    except KeyError:
        @internalcode
        def t_8(*unused):
            raise TemplateRuntimeError("No filter named 'replace' found.")
    try:
        t_9 = environment.filters['round']
    except KeyError:
        @internalcode
        def t_9(*unused):
            raise TemplateRuntimeError("No filter named 'round' found.")
    try:
        t_10 = environment.filters['selectattr']
    except KeyError:
        @internalcode
        def t_10(*unused):
            raise TemplateRuntimeError("No filter named 'selectattr' found.")
    try:
        t_11 = environment.filters['shown']
    except KeyError:
        @internalcode
        def t_11(*unused):
            raise TemplateRuntimeError("No filter named 'shown' found.")
    try:
        t_12 = environment.filters['tojson']
    except KeyError:
        @internalcode
        def t_12(*unused):
            raise TemplateRuntimeError("No filter named 'tojson' found.")
    try:
        t_13 = environment.filters['upper']
    except KeyError:
        @internalcode
        def t_13(*unused):
            raise TemplateRuntimeError("No filter named 'upper' found.")
    try:
        t_14 = environment.tests['defined']
    except KeyError:
        @internalcode
        def t_14(*unused):
            raise TemplateRuntimeError("No test named 'defined' found.")
    try:
        t_15 = environment.tests['mapping']
    except KeyError:
        @internalcode
        def t_15(*unused):
            raise TemplateRuntimeError("No test named 'mapping' found.")
    try:
        t_16 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_16(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    pass
    def macro(l_1_value, l_1_path):
        t_17 = []
        if l_1_value is missing:
            l_1_value = undefined("parameter 'value' was not provided", name='value')
        if l_1_path is missing:
            l_1_path = undefined("parameter 'path' was not provided", name='path')
        pass
        t_17.extend((
            '<span class="n" data-path=\'',
            escape(t_12(context.eval_ctx, l_1_path)),
            "'>",
            escape(t_6(l_1_value)),
            '</span>',
        ))
        return concat(t_17)
    context.exported_vars.add('n')
    context.vars['n'] = l_0_n = Macro(environment, macro, 'n', ('value', 'path'), False, False, False, context.eval_ctx.autoescape)
    def macro(l_1_v):
        t_18 = []
        l_1_icon = resolve('icon')
        if l_1_v is missing:
            l_1_v = undefined("parameter 'v' was not provided", name='v')
        pass
        t_18.extend((
            '<span class="v ',
            escape(l_1_v),
            '">',
            escape(environment.getitem((undefined(name='icon') if l_1_icon is missing else l_1_icon), l_1_v)),
            '</span>',
        ))
        return concat(t_18)
    context.exported_vars.add('verdict')
    context.vars['verdict'] = l_0_verdict = Macro(environment, macro, 'verdict', ('v',), False, False, False, context.eval_ctx.autoescape)
    yield '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'; img-src data:; script-src \''
    yield escape((undefined(name='script_hash') if l_0_script_hash is missing else l_0_script_hash))
    yield '\'">\n<title>iaa-gate: '
    yield escape(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'verdict'))
    yield '</title>\n<style>\n:root { --fail: #b42318; --warn: #b54708; --pass: #067647; --line: #d0d5dd; --muted: #667085; }\nbody { font: 14px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; padding: 1rem 2rem 4rem; max-width: 80rem; color: #1d2939; }\nh1 { margin: .5rem 0; } h2 { margin-top: 2.5rem; border-bottom: 2px solid var(--line); padding-bottom: .2rem; } h3 { margin: 1.2rem 0 .3rem; font-size: 1rem; }\ntable { border-collapse: collapse; margin: .4rem 0 1rem; }\nth, td { border: 1px solid var(--line); padding: .2rem .55rem; text-align: left; vertical-align: top; }\nth { background: #f2f4f7; font-weight: 600; }\ntd.r, th.r { text-align: right; font-variant-numeric: tabular-nums; }\n.v { font-weight: 600; white-space: nowrap; } .pass { color: var(--pass); } .warn { color: var(--warn); } .fail { color: var(--fail); }\ntr.fail td { background: #fef3f2; } tr.warn td { background: #fffaeb; } tr.outlier td { background: #fef3f2; }\n.banner { border-radius: 6px; padding: .8rem 1.2rem; margin: 1rem 0; border: 1px solid var(--line); }\n.banner.fail { background: #fef3f2; border-color: #fda29b; } .banner.warn { background: #fffaeb; border-color: #fec84b; } .banner.pass { background: #ecfdf3; border-color: #75e0a7; }\n.banner ul { margin: .3rem 0 0; padding-left: 1.2rem; color: #1d2939; }\n.meta { color: var(--muted); } .meta b { color: #1d2939; font-weight: 600; }\n.charts { display: flex; flex-wrap: wrap; gap: 1rem 2rem; align-items: flex-start; }\n.charts figure { margin: 0; max-width: min(100%, 36rem); } .charts figcaption { font-weight: 600; margin-bottom: .2rem; }\n.charts svg { max-width: 100%; height: auto; }\nth button { all: unset; cursor: pointer; } th button::after { content: " ↕"; color: var(--muted); }\nth[aria-sort=ascending] button::after { content: " ↑"; color: #1d2939; } th[aria-sort=descending] button::after { content: " ↓"; color: #1d2939; }\ninput.filter { font: inherit; padding: .2rem .4rem; width: 20rem; max-width: 100%; }\n.note { color: var(--muted); font-size: 90%; }\ntd.odd { font-weight: 600; color: var(--fail); }\n.spans div { white-space: pre-wrap; margin: .1rem 0; max-width: 60rem; } .spans .who { font-weight: 600; }\n.spans mark { border-radius: 3px; padding: 0 1px; color: inherit; } .spans sup { font-size: 70%; color: #475467; margin-left: 1px; }\n</style>\n</head>\n<body>\n<h1>iaa-gate: '
    yield escape(context.call((undefined(name='verdict') if l_0_verdict is missing else l_0_verdict), environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'verdict')))
    yield '</h1>\n<div class="banner '
    yield escape(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'verdict'))
    yield '" id="summary">\n'
    if (undefined(name='problems') if l_0_problems is missing else l_0_problems):
        pass
        yield '<b>'
        yield escape(t_4((undefined(name='problems') if l_0_problems is missing else l_0_problems)))
        yield ' check(s) did not pass:</b>\n<ul>\n'
        for (l_1_name, l_1_c) in (undefined(name='problems') if l_0_problems is missing else l_0_problems):
            _loop_vars = {}
            pass
            yield '<li>'
            yield escape(context.call((undefined(name='verdict') if l_0_verdict is missing else l_0_verdict), environment.getattr(l_1_c, 'verdict'), _loop_vars=_loop_vars))
            yield ' <b>'
            yield escape(l_1_name)
            yield '</b>: '
            yield escape(environment.getattr(l_1_c, 'message'))
            yield '</li>\n'
        l_1_name = l_1_c = missing
        yield '</ul>\n'
    else:
        pass
        yield '<b>Every check passed.</b>\n'
    yield '</div>\n<p class="meta">\nSource: <b>'
    yield escape(environment.getattr(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'source'), 'type'))
    yield '</b> <code>'
    yield escape((environment.getattr(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'source'), 'path') or environment.getattr(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'source'), 'url')))
    yield '</code>'
    if environment.getattr(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'source'), 'project'):
        pass
        yield ' (project '
        yield escape(environment.getattr(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'source'), 'project'))
        yield ')'
    yield '<br>\nRound: <b id="round">'
    yield escape((undefined(name='round_text') if l_0_round_text is missing else l_0_round_text))
    yield '</b><br>\nInput: '
    yield escape(context.call((undefined(name='n') if l_0_n is missing else l_0_n), environment.getattr(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'input'), 'tasks'), ['input', 'tasks']))
    yield ' tasks, '
    yield escape(context.call((undefined(name='n') if l_0_n is missing else l_0_n), environment.getattr(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'input'), 'annotations'), ['input', 'annotations']))
    yield ' annotations by '
    yield escape(context.call((undefined(name='n') if l_0_n is missing else l_0_n), environment.getattr(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'input'), 'annotators'), ['input', 'annotators']))
    yield ' annotators;\n'
    yield escape(context.call((undefined(name='n') if l_0_n is missing else l_0_n), environment.getattr(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'input'), 'cancelled'), ['input', 'cancelled']))
    yield ' skipped (cancelled), '
    yield escape(context.call((undefined(name='n') if l_0_n is missing else l_0_n), environment.getattr(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'input'), 'superseded'), ['input', 'superseded']))
    yield ' superseded by a later annotation of the same annotator,\n'
    yield escape(context.call((undefined(name='n') if l_0_n is missing else l_0_n), environment.getattr(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'input'), 'ignored'), ['input', 'ignored']))
    yield ' ignored,'
    if t_14(environment.getattr(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'input'), 'empty')):
        pass
        yield ' '
        yield escape(context.call((undefined(name='n') if l_0_n is missing else l_0_n), environment.getattr(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'input'), 'empty'), ['input', 'empty']))
        yield ' empty selections,'
    yield ' '
    yield escape(context.call((undefined(name='n') if l_0_n is missing else l_0_n), environment.getattr(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'input'), 'invalid_skipped'), ['input', 'invalid_skipped']))
    yield ' invalid skipped, '
    yield escape(context.call((undefined(name='n') if l_0_n is missing else l_0_n), environment.getattr(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'input'), 'outside_round'), ['input', 'outside_round']))
    yield ' outside the round.<br>\nGenerated '
    yield escape(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'generated_at'))
    yield ' by '
    yield escape(environment.getattr(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'tool'), 'name'))
    yield ' '
    yield escape(environment.getattr(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'tool'), 'version'))
    yield '.\n</p>\n<table id="fields">\n<thead><tr><th>field</th><th>level</th><th class="r">alpha</th><th>lowest category</th><th class="r">disputed tasks</th><th>verdict</th></tr></thead>\n<tbody>\n'
    l_1_loop = missing
    for (l_1_name, l_1_f), l_1_loop in LoopContext(context.call(environment.getattr(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'fields'), 'items')), undefined):
        _loop_vars = {}
        pass
        yield '<tr class="'
        yield escape(environment.getattr(l_1_f, 'verdict'))
        yield '"><td><a href="#f-'
        yield escape(environment.getattr(l_1_loop, 'index'))
        yield '">'
        yield escape(l_1_name)
        yield '</a></td><td>'
        yield escape(environment.getattr(l_1_f, 'level'))
        yield '</td><td class="r">'
        yield escape(context.call((undefined(name='n') if l_0_n is missing else l_0_n), environment.getattr(l_1_f, 'alpha'), ['fields', l_1_name, 'alpha'], _loop_vars=_loop_vars))
        yield '</td>\n<td>'
        if environment.getattr(l_1_f, 'lowest_category'):
            pass
            yield escape(environment.getattr(environment.getattr(l_1_f, 'lowest_category'), 'label'))
            yield ' '
            yield escape(context.call((undefined(name='n') if l_0_n is missing else l_0_n), environment.getattr(environment.getattr(l_1_f, 'lowest_category'), 'rate'), ['fields', l_1_name, 'lowest_category', 'rate'], _loop_vars=_loop_vars))
        else:
            pass
            yield '—'
        yield '</td>\n<td class="r">'
        yield escape(context.call((undefined(name='n') if l_0_n is missing else l_0_n), environment.getattr(l_1_f, 'n_disputed'), ['fields', l_1_name, 'n_disputed'], _loop_vars=_loop_vars))
        yield ' of '
        yield escape((environment.getattr(l_1_f, 'n_disputed') + environment.getattr(l_1_f, 'n_agreed')))
        yield '</td><td>'
        yield escape(context.call((undefined(name='verdict') if l_0_verdict is missing else l_0_verdict), environment.getattr(l_1_f, 'verdict'), _loop_vars=_loop_vars))
        yield '</td></tr>\n'
    l_1_loop = l_1_name = l_1_f = missing
    yield '</tbody>\n</table>\n'
    if environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'trend'):
        pass
        l_0_prev = environment.getattr(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'trend'), 'previous')
        context.vars['prev'] = l_0_prev
        context.exported_vars.add('prev')
        yield '<h2 id="trend">Since the previous round</h2>\n<p>Compared with <code>'
        yield escape(environment.getattr((undefined(name='prev') if l_0_prev is missing else l_0_prev), 'path'))
        yield '</code> ('
        yield escape(environment.getattr((undefined(name='prev') if l_0_prev is missing else l_0_prev), 'generated_at'))
        yield ', verdict '
        yield escape(environment.getattr((undefined(name='prev') if l_0_prev is missing else l_0_prev), 'verdict'))
        yield ').</p>\n<table class="trend"><thead><tr><th>field</th><th class="r">alpha before</th><th class="r">alpha now</th><th>change</th><th>alpha over the last rounds</th></tr></thead><tbody>\n'
        l_1_loop = missing
        for (l_1_name, l_1_t), l_1_loop in LoopContext(context.call(environment.getattr(environment.getattr(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'trend'), 'fields'), 'items')), undefined):
            l_1_change = resolve('change')
            _loop_vars = {}
            pass
            yield '<tr><td>'
            yield escape(l_1_name)
            yield '</td>'
            if environment.getattr(l_1_t, 'comparable'):
                pass
                yield '<td class="r">'
                yield escape(t_6(environment.getattr(environment.getattr(l_1_t, 'alpha'), 'previous')))
                yield '</td><td class="r">'
                yield escape(t_6(environment.getattr(environment.getattr(l_1_t, 'alpha'), 'current')))
                yield '</td><td>'
                yield escape(context.call((undefined(name='change') if l_1_change is missing else l_1_change), environment.getattr(l_1_t, 'alpha'), _loop_vars=_loop_vars))
                yield '</td>'
            else:
                pass
                yield '<td class="r">—</td><td class="r">—</td><td>'
                yield escape(environment.getattr(l_1_t, 'note'))
                yield '</td>'
            yield '<td>'
            l_2_loop = missing
            for l_2_p, l_2_loop in LoopContext(environment.getattr(l_1_t, 'series'), undefined):
                _loop_vars = {}
                pass
                yield escape((t_1('%.2f', environment.getattr(l_2_p, 'alpha')) if (not t_16(environment.getattr(l_2_p, 'alpha'))) else 'undefined'))
                if (not environment.getattr(l_2_loop, 'last')):
                    pass
                    yield ' → '
            l_2_loop = l_2_p = missing
            yield '</td></tr>\n'
        l_1_loop = l_1_name = l_1_t = l_1_change = missing
        yield '</tbody></table>\n'
        for l_1_note in environment.getattr(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'trend'), 'notes'):
            _loop_vars = {}
            pass
            yield '<p class="note">'
            yield escape(l_1_note)
            yield '</p>'
        l_1_note = missing
    if environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'not_evaluated'):
        pass
        yield '<p id="not-evaluated"><b>Not evaluated</b> (in the data, not listed in the config):\n'
        l_1_loop = missing
        for (l_1_k, l_1_v), l_1_loop in LoopContext(context.call(environment.getattr(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'not_evaluated'), 'items')), undefined):
            _loop_vars = {}
            pass
            yield '<code>'
            yield escape(l_1_k)
            yield '</code> ('
            yield escape(l_1_v)
            yield ')'
            if (not environment.getattr(l_1_loop, 'last')):
                pass
                yield ', '
        l_1_loop = l_1_k = l_1_v = missing
        yield '</p>\n'
    if (not (undefined(name='charts_available') if l_0_charts_available is missing else l_0_charts_available)):
        pass
        yield '<p class="note">Charts need matplotlib: <code>pip install "iaa-gate[html]"</code>. The tables below hold every number.</p>\n'
    l_1_loop = missing
    for (l_1_name, l_1_f), l_1_loop in LoopContext(context.call(environment.getattr(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'fields'), 'items')), undefined):
        l_1_charts = resolve('charts')
        l_1_alpha_name = resolve('alpha_name')
        l_1_sampling_note = resolve('sampling_note')
        l_1_categories_text = resolve('categories_text')
        l_1_m = resolve('m')
        l_1_u = resolve('u')
        l_1_confused_pairs = resolve('confused_pairs')
        l_1_offsets = resolve('offsets')
        l_1_skill_accuracy = resolve('skill_accuracy')
        l_1_accuracy = resolve('accuracy')
        l_1_alpha_without_note = resolve('alpha_without_note')
        l_1_note = resolve('note')
        l_1_gt = resolve('gt')
        l_1_change = resolve('change')
        l_1_disputed_rows = resolve('disputed_rows')
        l_1_spans = resolve('spans')
        l_1_label_colors = resolve('label_colors')
        l_1_colors = resolve('colors')
        l_1_fi = l_1_figs = l_1_r = l_1_confused = l_1_t = l_1_rows = l_1_columns = missing
        _loop_vars = {}
        pass
        l_1_fi = environment.getattr(l_1_loop, 'index')
        _loop_vars['fi'] = l_1_fi
        l_1_figs = context.call(environment.getattr((undefined(name='charts') if l_1_charts is missing else l_1_charts), 'get'), l_1_name, {}, _loop_vars=_loop_vars)
        _loop_vars['figs'] = l_1_figs
        yield '<section class="field" id="f-'
        yield escape((undefined(name='fi') if l_1_fi is missing else l_1_fi))
        yield '">\n<h2>'
        yield escape(l_1_name)
        yield ': '
        yield escape(context.call((undefined(name='verdict') if l_0_verdict is missing else l_0_verdict), environment.getattr(l_1_f, 'verdict'), _loop_vars=_loop_vars))
        yield '</h2>\n<p>'
        yield escape(context.call((undefined(name='alpha_name') if l_1_alpha_name is missing else l_1_alpha_name), l_1_f, _loop_vars=_loop_vars))
        yield ': <b>'
        yield escape(context.call((undefined(name='n') if l_0_n is missing else l_0_n), environment.getattr(l_1_f, 'alpha'), ['fields', l_1_name, 'alpha'], _loop_vars=_loop_vars))
        yield '</b>'
        if environment.getattr(l_1_f, 'alpha_undefined_reason'):
            pass
            yield ' ('
            yield escape(environment.getattr(l_1_f, 'alpha_undefined_reason'))
            yield ')'
        yield ' over '
        yield escape(context.call((undefined(name='n') if l_0_n is missing else l_0_n), environment.getattr(l_1_f, 'n_pairable'), ['fields', l_1_name, 'n_pairable'], _loop_vars=_loop_vars))
        yield ' tasks with two or more ratings ('
        yield escape(context.call((undefined(name='n') if l_0_n is missing else l_0_n), environment.getattr(l_1_f, 'n_ratings'), ['fields', l_1_name, 'n_ratings'], _loop_vars=_loop_vars))
        yield ' ratings, '
        yield escape(context.call((undefined(name='n') if l_0_n is missing else l_0_n), environment.getattr(l_1_f, 'n_annotators'), ['fields', l_1_name, 'n_annotators'], _loop_vars=_loop_vars))
        yield ' annotators).</p>\n<h3>Checks</h3>\n<table class="checks">\n<thead><tr><th>check</th><th class="r">value</th><th class="r">fail below</th><th class="r">warn below</th><th>verdict</th><th>why</th></tr></thead>\n<tbody>\n'
        l_2_loop = missing
        for l_2_c, l_2_loop in LoopContext(environment.getattr(l_1_f, 'checks'), undefined):
            l_2_ci = missing
            _loop_vars = {}
            pass
            l_2_ci = environment.getattr(l_2_loop, 'index0')
            _loop_vars['ci'] = l_2_ci
            yield '<tr class="'
            yield escape(environment.getattr(l_2_c, 'verdict'))
            yield '"><td>'
            yield escape(environment.getattr(l_2_c, 'name'))
            yield '</td><td class="r">'
            if ((environment.getattr(l_2_c, 'name') == 'annotators') and (not t_16(environment.getattr(l_2_c, 'value')))):
                pass
                yield escape(t_2(environment.getattr(l_2_c, 'value')))
                yield ' outlier(s)'
            else:
                pass
                yield escape(context.call((undefined(name='n') if l_0_n is missing else l_0_n), environment.getattr(l_2_c, 'value'), ['fields', l_1_name, 'checks', (undefined(name='ci') if l_2_ci is missing else l_2_ci), 'value'], _loop_vars=_loop_vars))
            yield '</td>\n<td class="r">'
            yield escape(('—' if t_16(environment.getattr(l_2_c, 'fail')) else environment.getattr(l_2_c, 'fail')))
            yield '</td><td class="r">'
            yield escape(('—' if t_16(environment.getattr(l_2_c, 'warn')) else environment.getattr(l_2_c, 'warn')))
            yield '</td><td>'
            yield escape(context.call((undefined(name='verdict') if l_0_verdict is missing else l_0_verdict), environment.getattr(l_2_c, 'verdict'), _loop_vars=_loop_vars))
            yield '</td><td>'
            yield escape(environment.getattr(l_2_c, 'message'))
            yield '</td></tr>\n'
        l_2_loop = l_2_c = l_2_ci = missing
        yield '</tbody>\n</table>\n'
        if environment.getattr(l_1_f, 'alpha_sampling'):
            pass
            yield '<p class="warn alpha-sampling"><b>'
            yield escape(context.call((undefined(name='sampling_note') if l_1_sampling_note is missing else l_1_sampling_note), l_1_f, _loop_vars=_loop_vars))
            yield '.</b></p>'
        if environment.getattr(l_1_f, 'small_sample'):
            pass
            yield '<p class="warn small-sample"><b>'
            yield escape(t_13(environment.getattr(l_1_f, 'small_sample')[:1]))
            yield escape(environment.getattr(l_1_f, 'small_sample')[1:])
            yield '.</b></p>'
        if environment.getattr(l_1_f, 'coefficients'):
            pass
            yield '<h3>Coefficients</h3>\n<table class="coefficients">\n<thead><tr><th>coefficient</th><th class="r">value</th><th>interval</th><th>interpretation</th><th>note</th></tr></thead>\n<tbody>\n'
            for (l_2_cn, l_2_c) in context.call(environment.getattr(environment.getattr(l_1_f, 'coefficients'), 'items'), _loop_vars=_loop_vars):
                l_2_p = missing
                _loop_vars = {}
                pass
                l_2_p = ['fields', l_1_name, 'coefficients', l_2_cn]
                _loop_vars['p'] = l_2_p
                yield '<tr><td>'
                yield escape(l_2_cn)
                yield '</td><td class="r">'
                yield escape(context.call((undefined(name='n') if l_0_n is missing else l_0_n), environment.getattr(l_2_c, 'value'), ((undefined(name='p') if l_2_p is missing else l_2_p) + ['value']), _loop_vars=_loop_vars))
                yield '</td>\n<td>'
                if ((not t_16(environment.getattr(l_2_c, 'lower'))) and (not t_16(environment.getattr(l_2_c, 'upper')))):
                    pass
                    yield escape(context.call((undefined(name='n') if l_0_n is missing else l_0_n), environment.getattr(l_2_c, 'lower'), ((undefined(name='p') if l_2_p is missing else l_2_p) + ['lower']), _loop_vars=_loop_vars))
                    yield ' – '
                    yield escape(context.call((undefined(name='n') if l_0_n is missing else l_0_n), environment.getattr(l_2_c, 'upper'), ((undefined(name='p') if l_2_p is missing else l_2_p) + ['upper']), _loop_vars=_loop_vars))
                    yield ' ('
                    yield escape(t_2(t_9((environment.getattr(l_2_c, 'confidence') * 100))))
                    yield '%)'
                    if environment.getattr(l_1_f, 'small_sample'):
                        pass
                        yield ', small sample'
                else:
                    pass
                    yield '—'
                yield '</td>\n<td>'
                yield escape((environment.getattr(l_2_c, 'interpretation') or '—'))
                if (environment.getattr(l_2_c, 'interpretation') and environment.getattr(l_2_c, 'scale')):
                    pass
                    yield ' ('
                    yield escape(t_8(context.eval_ctx, environment.getattr(l_2_c, 'scale'), '_', ' & '))
                    yield ')'
                if environment.getattr(l_2_c, 'benchmark'):
                    pass
                    yield '; Gwet benchmark: '
                    yield escape(environment.getattr(l_2_c, 'benchmark'))
                yield '</td>\n<td>'
                if environment.getattr(l_2_c, 'ignores_order'):
                    pass
                    yield '<b>ignores the order</b> of the ratings (unweighted); '
                yield escape((environment.getattr(l_2_c, 'undefined_reason') or environment.getattr(l_2_c, 'description')))
                if (not t_16(environment.getattr(l_2_c, 'q'))):
                    pass
                    yield '; P(alpha &lt; fail threshold) = '
                    yield escape(context.call((undefined(name='n') if l_0_n is missing else l_0_n), environment.getattr(l_2_c, 'q'), ((undefined(name='p') if l_2_p is missing else l_2_p) + ['q']), _loop_vars=_loop_vars))
                yield '</td></tr>\n'
            l_2_cn = l_2_c = l_2_p = missing
            yield '</tbody>\n</table>\n'
            if environment.getattr(l_1_f, 'categories_used'):
                pass
                yield '<p class="note">The kappa family and AC2 use the categories '
                yield escape(context.call((undefined(name='categories_text') if l_1_categories_text is missing else l_1_categories_text), environment.getattr(l_1_f, 'categories_used'), _loop_vars=_loop_vars))
                yield '.</p>'
        l_1_r = (environment.getattr(l_1_f, 'regions') if t_14(environment.getattr(l_1_f, 'regions')) else None)
        _loop_vars['r'] = l_1_r
        if (undefined(name='r') if l_1_r is missing else l_1_r):
            pass
            l_1_m = environment.getattr((undefined(name='r') if l_1_r is missing else l_1_r), 'matching')
            _loop_vars['m'] = l_1_m
            yield '<h3>Regions</h3>\n<p class="regions">'
            yield escape(environment.getattr((undefined(name='r') if l_1_r is missing else l_1_r), 'shape'))
            yield 's, '
            yield escape(environment.getattr((undefined(name='r') if l_1_r is missing else l_1_r), 'n_regions'))
            yield ' regions; matching '
            yield escape(environment.getattr((undefined(name='m') if l_1_m is missing else l_1_m), 'mode'))
            if (environment.getattr((undefined(name='m') if l_1_m is missing else l_1_m), 'mode') == 'overlap'):
                pass
                yield ', IoU ≥ '
                yield escape(environment.getattr((undefined(name='m') if l_1_m is missing else l_1_m), 'iou'))
            yield escape((', same label' if environment.getattr((undefined(name='m') if l_1_m is missing else l_1_m), 'labels') else ', labels ignored'))
            yield ':\npairwise F1 <b>'
            yield escape(t_6(environment.getattr((undefined(name='r') if l_1_r is missing else l_1_r), 'f1')))
            yield '</b>, strict (exact) '
            yield escape(t_6(environment.getattr((undefined(name='r') if l_1_r is missing else l_1_r), 'strict_f1')))
            yield ', mean IoU of matched regions '
            yield escape(t_6(environment.getattr((undefined(name='r') if l_1_r is missing else l_1_r), 'mean_iou')))
            yield '.\n'
            if environment.getattr((undefined(name='r') if l_1_r is missing else l_1_r), 'unitizing_alpha'):
                pass
                l_1_u = environment.getattr((undefined(name='r') if l_1_r is missing else l_1_r), 'unitizing_alpha')
                _loop_vars['u'] = l_1_u
                yield '<br>Unitizing alpha: <b>'
                yield escape(t_6(environment.getattr((undefined(name='u') if l_1_u is missing else l_1_u), 'value')))
                yield '</b>'
                if environment.getattr((undefined(name='u') if l_1_u is missing else l_1_u), 'undefined_reason'):
                    pass
                    yield ' ('
                    yield escape(environment.getattr((undefined(name='u') if l_1_u is missing else l_1_u), 'undefined_reason'))
                    yield ')'
                if environment.getattr((undefined(name='u') if l_1_u is missing else l_1_u), 'by_label'):
                    pass
                    yield '; by label: '
                    l_2_loop = missing
                    for (l_2_k, l_2_v), l_2_loop in LoopContext(context.call(environment.getattr(environment.getattr((undefined(name='u') if l_1_u is missing else l_1_u), 'by_label'), 'items'), _loop_vars=_loop_vars), undefined):
                        _loop_vars = {}
                        pass
                        yield escape(l_2_k)
                        yield ' '
                        yield escape(t_6(l_2_v))
                        if (not environment.getattr(l_2_loop, 'last')):
                            pass
                            yield ', '
                    l_2_loop = l_2_k = l_2_v = missing
                yield '.'
                if environment.getattr((undefined(name='u') if l_1_u is missing else l_1_u), 'tasks_without_text'):
                    pass
                    yield ' Tasks without a known text, left out: '
                    yield escape(environment.getattr((undefined(name='u') if l_1_u is missing else l_1_u), 'tasks_without_text'))
                    yield '.'
            if environment.getattr((undefined(name='r') if l_1_r is missing else l_1_r), 'relations'):
                pass
                yield '<br>Relations ('
                yield escape(environment.getattr(environment.getattr((undefined(name='r') if l_1_r is missing else l_1_r), 'relations'), 'n'))
                yield '): pairwise F1 '
                yield escape(t_6(environment.getattr(environment.getattr((undefined(name='r') if l_1_r is missing else l_1_r), 'relations'), 'f1')))
                l_2_loop = missing
                for (l_2_k, l_2_v), l_2_loop in LoopContext(context.call(environment.getattr(environment.getattr(environment.getattr((undefined(name='r') if l_1_r is missing else l_1_r), 'relations'), 'f1_by_label'), 'items'), _loop_vars=_loop_vars), undefined):
                    _loop_vars = {}
                    pass
                    yield escape(('; ' if environment.getattr(l_2_loop, 'first') else ', '))
                    yield escape(l_2_k)
                    yield ' '
                    yield escape(t_6(l_2_v))
                l_2_loop = l_2_k = l_2_v = missing
                yield '.'
            if environment.getattr((undefined(name='r') if l_1_r is missing else l_1_r), 'relations_not_evaluated'):
                pass
                yield '<br>Not evaluated: '
                yield escape(environment.getattr((undefined(name='r') if l_1_r is missing else l_1_r), 'relations_not_evaluated'))
                yield ' relation(s) between two fields.'
            yield '</p>\n'
        if (undefined(name='figs') if l_1_figs is missing else l_1_figs):
            pass
            yield '<div class="charts">\n'
            if environment.getattr((undefined(name='figs') if l_1_figs is missing else l_1_figs), 'categories'):
                pass
                yield '<figure class="chart" data-chart="categories"><figcaption>Agreement per category ('
                yield escape(t_8(context.eval_ctx, environment.getattr(l_1_f, 'category_method'), '_', ' '))
                yield ')</figcaption>'
                yield escape(environment.getattr((undefined(name='figs') if l_1_figs is missing else l_1_figs), 'categories'))
                yield '</figure>'
            if environment.getattr((undefined(name='figs') if l_1_figs is missing else l_1_figs), 'scores'):
                pass
                yield '<figure class="chart" data-chart="scores"><figcaption>Per-task scores ('
                yield escape((environment.getattr(l_1_f, 'n_disputed') + environment.getattr(l_1_f, 'n_agreed')))
                yield ' tasks)</figcaption>'
                yield escape(environment.getattr((undefined(name='figs') if l_1_figs is missing else l_1_figs), 'scores'))
                yield '</figure>'
            if environment.getattr((undefined(name='figs') if l_1_figs is missing else l_1_figs), 'coincidence'):
                pass
                yield '<figure class="chart" data-chart="coincidence"><figcaption>Which labels are confused: coincidences (row: a label; cells: the labels paired with it; darker: a larger share of the row)</figcaption>'
                yield escape(environment.getattr((undefined(name='figs') if l_1_figs is missing else l_1_figs), 'coincidence'))
                yield '</figure>'
            if environment.getattr((undefined(name='figs') if l_1_figs is missing else l_1_figs), 'region_pairs'):
                pass
                yield '<figure class="chart" data-chart="region_pairs"><figcaption>Annotator × annotator region F1 (n = tasks both annotated; darker: higher; ★ outlier)</figcaption>'
                yield escape(environment.getattr((undefined(name='figs') if l_1_figs is missing else l_1_figs), 'region_pairs'))
                yield '</figure>'
            if environment.getattr((undefined(name='figs') if l_1_figs is missing else l_1_figs), 'trend'):
                pass
                yield '<figure class="chart" data-chart="trend"><figcaption>Alpha over the last rounds</figcaption>'
                yield escape(environment.getattr((undefined(name='figs') if l_1_figs is missing else l_1_figs), 'trend'))
                yield '</figure>'
            if environment.getattr((undefined(name='figs') if l_1_figs is missing else l_1_figs), 'pairwise'):
                pass
                yield '<figure class="chart" data-chart="pairwise"><figcaption>Annotator × annotator agreement (share of the n tasks both rated with the same label; darker: higher; ★ outlier)</figcaption>'
                yield escape(environment.getattr((undefined(name='figs') if l_1_figs is missing else l_1_figs), 'pairwise'))
                yield '</figure>'
            yield '</div>\n'
        l_1_confused = context.call((undefined(name='confused_pairs') if l_1_confused_pairs is missing else l_1_confused_pairs), environment.getattr(l_1_f, 'coincidence'), _loop_vars=_loop_vars)
        _loop_vars['confused'] = l_1_confused
        if (undefined(name='confused') if l_1_confused is missing else l_1_confused):
            pass
            yield '<p class="confused">Most confused pairs (coincidences): '
            l_2_loop = missing
            for (l_2_a, l_2_b, l_2_w), l_2_loop in LoopContext((undefined(name='confused') if l_1_confused is missing else l_1_confused), undefined):
                _loop_vars = {}
                pass
                yield '<b>'
                yield escape(l_2_a)
                yield '</b> ↔ <b>'
                yield escape(l_2_b)
                yield '</b>: '
                yield escape(t_1('%.1f', l_2_w))
                yield escape(('; ' if (not environment.getattr(l_2_loop, 'last')) else '.'))
            l_2_loop = l_2_a = l_2_b = l_2_w = missing
            yield '</p>'
        if environment.getattr(l_1_f, 'categories'):
            pass
            yield '<details><summary>Agreement per category, as a table</summary>\n<table class="categories"><thead><tr><th>category</th><th class="r">'
            yield escape(t_8(context.eval_ctx, environment.getattr(l_1_f, 'category_method'), '_', ' '))
            yield '</th></tr></thead><tbody>\n'
            for (l_2_k, l_2_v) in context.call(environment.getattr(environment.getattr(l_1_f, 'categories'), 'items'), _loop_vars=_loop_vars):
                _loop_vars = {}
                pass
                yield '<tr><td>'
                yield escape(l_2_k)
                yield '</td><td class="r">'
                yield escape(context.call((undefined(name='n') if l_0_n is missing else l_0_n), l_2_v, ['fields', l_1_name, 'categories', l_2_k], _loop_vars=_loop_vars))
                if environment.getitem(environment.getattr(l_1_f, 'categories_undefined'), l_2_k):
                    pass
                    yield ' ('
                    yield escape(environment.getitem(environment.getattr(l_1_f, 'categories_undefined'), l_2_k))
                    yield ')'
                yield '</td></tr>\n'
            l_2_k = l_2_v = missing
            yield '</tbody></table></details>\n'
        if environment.getattr(l_1_f, 'annotators'):
            pass
            l_1_offsets = (t_4(t_5(context.eval_ctx, t_7(context, t_10(context, environment.getattr(l_1_f, 'annotators'), 'mean_offset', 'defined'), 'mean_offset', 'none'))) > 0)
            _loop_vars['offsets'] = l_1_offsets
            yield '<h3>Annotators</h3>\n<table class="annotators sortable">\n<thead><tr><th><button type="button">annotator</button></th><th class="r"><button type="button">tasks shared</button></th><th class="r"><button type="button">pair agreement</button></th><th class="r"><button type="button">alpha without</button></th><th class="r"><button type="button">change</button></th><th><button type="button">outlier</button></th>'
            if (undefined(name='offsets') if l_1_offsets is missing else l_1_offsets):
                pass
                yield '<th class="r"><button type="button">mean offset</button></th>'
            if environment.getattr(l_1_f, 'skill'):
                pass
                yield '<th class="r"><button type="button">accuracy (Dawid–Skene)</button></th>'
            yield '</tr></thead>\n<tbody>\n'
            l_1_accuracy = context.call((undefined(name='skill_accuracy') if l_1_skill_accuracy is missing else l_1_skill_accuracy), l_1_f, _loop_vars=_loop_vars)
            _loop_vars['accuracy'] = l_1_accuracy
            l_2_loop = missing
            for l_2_a, l_2_loop in LoopContext(environment.getattr(l_1_f, 'annotators'), undefined):
                l_2_p = missing
                _loop_vars = {}
                pass
                l_2_p = ['fields', l_1_name, 'annotators', environment.getattr(l_2_loop, 'index0')]
                _loop_vars['p'] = l_2_p
                yield '<tr'
                if environment.getattr(l_2_a, 'outlier'):
                    pass
                    yield ' class="outlier"'
                yield '><td>'
                yield escape(environment.getattr(l_2_a, 'name'))
                yield '</td><td class="r">'
                yield escape(context.call((undefined(name='n') if l_0_n is missing else l_0_n), environment.getattr(l_2_a, 'n_units'), ((undefined(name='p') if l_2_p is missing else l_2_p) + ['n_units']), _loop_vars=_loop_vars))
                yield '</td><td class="r">'
                yield escape(context.call((undefined(name='n') if l_0_n is missing else l_0_n), environment.getattr(l_2_a, 'pair_agreement'), ((undefined(name='p') if l_2_p is missing else l_2_p) + ['pair_agreement']), _loop_vars=_loop_vars))
                yield '</td>\n<td class="r">'
                yield escape(context.call((undefined(name='n') if l_0_n is missing else l_0_n), environment.getattr(l_2_a, 'alpha_without'), ((undefined(name='p') if l_2_p is missing else l_2_p) + ['alpha_without']), _loop_vars=_loop_vars))
                yield '</td><td class="r" data-sort="'
                yield escape((environment.getattr(l_2_a, 'alpha_gain') if (not t_16(environment.getattr(l_2_a, 'alpha_gain'))) else ''))
                yield '">'
                yield escape(('—' if t_16(environment.getattr(l_2_a, 'alpha_gain')) else t_1('%+.3f', environment.getattr(l_2_a, 'alpha_gain'))))
                yield '</td><td>'
                if environment.getattr(l_2_a, 'outlier'):
                    pass
                    yield '<b class="fail">yes</b>'
                yield '</td>'
                if (undefined(name='offsets') if l_1_offsets is missing else l_1_offsets):
                    pass
                    yield '<td class="r" data-sort="'
                    yield escape((environment.getattr(l_2_a, 'mean_offset') if (not t_16(environment.getattr(l_2_a, 'mean_offset'))) else ''))
                    yield '">'
                    yield escape(('—' if t_16(environment.getattr(l_2_a, 'mean_offset')) else t_1('%+.3f', environment.getattr(l_2_a, 'mean_offset'))))
                    yield '</td>'
                if environment.getattr(l_1_f, 'skill'):
                    pass
                    yield '<td class="r">'
                    yield escape(t_6(context.call(environment.getattr((undefined(name='accuracy') if l_1_accuracy is missing else l_1_accuracy), 'get'), environment.getattr(l_2_a, 'id'), _loop_vars=_loop_vars)))
                    yield '</td>'
                yield '</tr>\n'
            l_2_loop = l_2_a = l_2_p = missing
            yield '</tbody>\n</table>\n'
            l_1_note = context.call((undefined(name='alpha_without_note') if l_1_alpha_without_note is missing else l_1_alpha_without_note), l_1_f, _loop_vars=_loop_vars)
            _loop_vars['note'] = l_1_note
            if (undefined(name='note') if l_1_note is missing else l_1_note):
                pass
                yield '<p class="note">'
                yield escape((undefined(name='note') if l_1_note is missing else l_1_note))
                yield '</p>'
            if environment.getattr(l_1_f, 'skill'):
                pass
                yield '<details class="skill"><summary>Annotator skill (Dawid–Skene per '
                yield escape(environment.getattr(environment.getattr(l_1_f, 'skill'), 'basis'))
                yield ', '
                yield escape(environment.getattr(environment.getattr(l_1_f, 'skill'), 'iterations'))
                yield ' EM iterations'
                if (not environment.getattr(environment.getattr(l_1_f, 'skill'), 'converged')):
                    pass
                    yield ', not converged'
                yield '): confusion matrices</summary>\n'
                l_2_loop = missing
                for l_2_a, l_2_loop in LoopContext(environment.getattr(environment.getattr(l_1_f, 'skill'), 'annotators'), undefined):
                    _loop_vars = {}
                    pass
                    yield '<table class="confusion"><caption>'
                    yield escape(environment.getattr(l_2_a, 'name'))
                    yield ': accuracy '
                    yield escape(t_6(environment.getattr(l_2_a, 'accuracy')))
                    yield ' over '
                    yield escape(environment.getattr(l_2_a, 'n_units'))
                    yield ' units; P(given | true)</caption>\n<thead><tr><th>true \\ given</th>'
                    for l_3_c in environment.getattr(environment.getattr(l_1_f, 'skill'), 'classes'):
                        _loop_vars = {}
                        pass
                        yield '<th class="r">'
                        yield escape(l_3_c)
                        yield '</th>'
                    l_3_c = missing
                    yield '</tr></thead>\n<tbody>'
                    l_3_loop = missing
                    for l_3_row, l_3_loop in LoopContext(environment.getattr(l_2_a, 'confusion'), undefined):
                        _loop_vars = {}
                        pass
                        yield '<tr><th>'
                        yield escape(environment.getitem(environment.getattr(environment.getattr(l_1_f, 'skill'), 'classes'), environment.getattr(l_3_loop, 'index0')))
                        yield '</th>'
                        for l_4_x in l_3_row:
                            _loop_vars = {}
                            pass
                            yield '<td class="r">'
                            yield escape(t_1('%.2f', l_4_x))
                            yield '</td>'
                        l_4_x = missing
                        yield '</tr>'
                    l_3_loop = l_3_row = missing
                    yield '</tbody>\n</table>\n'
                l_2_loop = l_2_a = missing
                yield '</details>\n'
            if (undefined(name='offsets') if l_1_offsets is missing else l_1_offsets):
                pass
                yield '<p class="note">Mean offset: how far the annotator\'s ratings lie above (+) or below (−) the mean of the others on the same task, in scale points.</p>'
        if environment.getattr(l_1_f, 'ground_truth'):
            pass
            l_1_gt = environment.getattr(l_1_f, 'ground_truth')
            _loop_vars['gt'] = l_1_gt
            yield '<h3>Agreement with ground truth</h3>\n<p class="note">'
            yield escape(environment.getattr((undefined(name='gt') if l_1_gt is missing else l_1_gt), 'n_tasks'))
            yield ' gold tasks; compared by '
            yield escape(environment.getattr((undefined(name='gt') if l_1_gt is missing else l_1_gt), 'comparison'))
            yield '.'
            if environment.getattr((undefined(name='gt') if l_1_gt is missing else l_1_gt), 'conflicting'):
                pass
                yield ' Not used (their references disagree): tasks '
                yield escape(t_3(context.eval_ctx, environment.getattr((undefined(name='gt') if l_1_gt is missing else l_1_gt), 'conflicting'), ', '))
                yield '.'
            yield '</p>\n<table class="ground-truth sortable">\n<thead><tr><th><button type="button">annotator</button></th><th class="r"><button type="button">gold tasks</button></th><th class="r"><button type="button">agreement</button></th><th class="r"><button type="button">mean offset</button></th></tr></thead>\n<tbody>\n'
            for l_2_a in environment.getattr((undefined(name='gt') if l_1_gt is missing else l_1_gt), 'annotators'):
                _loop_vars = {}
                pass
                yield '<tr><td>'
                yield escape(environment.getattr(l_2_a, 'name'))
                yield '</td><td class="r">'
                yield escape(environment.getattr(l_2_a, 'n_tasks'))
                yield '</td><td class="r">'
                yield escape(t_6(environment.getattr(l_2_a, 'agreement')))
                yield '</td><td class="r">'
                yield escape(('—' if t_16(environment.getattr(l_2_a, 'mean_offset')) else t_1('%+.3f', environment.getattr(l_2_a, 'mean_offset'))))
                yield '</td></tr>\n'
            l_2_a = missing
            yield '</tbody>\n</table>\n'
        l_1_t = (environment.getitem(environment.getattr(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'trend'), 'fields'), l_1_name) if (environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'trend') and (l_1_name in environment.getattr(environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'trend'), 'fields'))) else None)
        _loop_vars['t'] = l_1_t
        if ((undefined(name='t') if l_1_t is missing else l_1_t) and environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'comparable')):
            pass
            yield '<details><summary>Change since the previous round (annotators: pair agreement)</summary>\n<table class="trend-field"><thead><tr><th>what</th><th>name</th><th class="r">before</th><th class="r">now</th><th>change</th></tr></thead><tbody>\n'
            for (l_2_k, l_2_rec) in context.call(environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'coefficients'), 'items'), _loop_vars=_loop_vars):
                _loop_vars = {}
                pass
                yield '<tr><td>coefficient</td><td>'
                yield escape(l_2_k)
                yield '</td><td class="r">'
                yield escape(t_6(environment.getattr(l_2_rec, 'previous')))
                yield '</td><td class="r">'
                yield escape(t_6(environment.getattr(l_2_rec, 'current')))
                yield '</td><td>'
                yield escape(context.call((undefined(name='change') if l_1_change is missing else l_1_change), l_2_rec, _loop_vars=_loop_vars))
                yield '</td></tr>\n'
            l_2_k = l_2_rec = missing
            for (l_2_k, l_2_rec) in context.call(environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'categories'), 'items'), _loop_vars=_loop_vars):
                _loop_vars = {}
                pass
                yield '<tr><td>label</td><td>'
                yield escape(l_2_k)
                yield '</td><td class="r">'
                yield escape(t_6(environment.getattr(l_2_rec, 'previous')))
                yield '</td><td class="r">'
                yield escape(t_6(environment.getattr(l_2_rec, 'current')))
                yield '</td><td>'
                yield escape(context.call((undefined(name='change') if l_1_change is missing else l_1_change), l_2_rec, _loop_vars=_loop_vars))
                yield '</td></tr>\n'
            l_2_k = l_2_rec = missing
            for l_2_a in context.call(environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'annotators'), 'values'), _loop_vars=_loop_vars):
                _loop_vars = {}
                pass
                yield '<tr><td>annotator</td><td>'
                yield escape(environment.getattr(l_2_a, 'name'))
                yield '</td><td class="r">'
                yield escape(t_6(environment.getattr(environment.getattr(l_2_a, 'pair_agreement'), 'previous')))
                yield '</td><td class="r">'
                yield escape(t_6(environment.getattr(environment.getattr(l_2_a, 'pair_agreement'), 'current')))
                yield '</td><td>'
                yield escape(context.call((undefined(name='change') if l_1_change is missing else l_1_change), environment.getattr(l_2_a, 'pair_agreement'), _loop_vars=_loop_vars))
                yield '</td></tr>\n'
            l_2_a = missing
            yield '<tr><td>disputed share</td><td></td><td class="r">'
            yield escape(t_6(environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'disputed_share'), 'previous')))
            yield '</td><td class="r">'
            yield escape(t_6(environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'disputed_share'), 'current')))
            yield '</td><td>'
            yield escape(context.call((undefined(name='change') if l_1_change is missing else l_1_change), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'disputed_share'), _loop_vars=_loop_vars))
            yield '</td></tr>\n</tbody></table></details>\n'
        (l_1_rows, l_1_columns) = context.call((undefined(name='disputed_rows') if l_1_disputed_rows is missing else l_1_disputed_rows), l_1_name, l_1_f, _loop_vars=_loop_vars)
        _loop_vars.update({'columns': l_1_columns, 'rows': l_1_rows})
        yield '<h3 id="disputed-'
        yield escape((undefined(name='fi') if l_1_fi is missing else l_1_fi))
        yield '">Disputed tasks (score below '
        yield escape(environment.getattr(l_1_f, 'disputed_below'))
        if (t_14(environment.getattr(l_1_f, 'disputed_tolerance')) and (not t_16(environment.getattr(l_1_f, 'disputed_tolerance')))):
            pass
            yield '; ratings within '
            yield escape(environment.getattr(l_1_f, 'disputed_tolerance'))
            yield ' agree'
        yield '): '
        yield escape(context.call((undefined(name='n') if l_0_n is missing else l_0_n), environment.getattr(l_1_f, 'n_disputed'), ['fields', l_1_name, 'n_disputed'], _loop_vars=_loop_vars))
        yield '</h3>\n'
        if (undefined(name='rows') if l_1_rows is missing else l_1_rows):
            pass
            if ((not t_16((undefined(name='columns') if l_1_columns is missing else l_1_columns))) and (not ((undefined(name='r') if l_1_r is missing else l_1_r) and (environment.getattr((undefined(name='r') if l_1_r is missing else l_1_r), 'shape') == 'span')))):
                pass
                yield '<p class="note">In red: a label that differs from the task\'s most common one.</p>'
            yield '<p class="note">In review order: '
            yield escape(environment.getattr(environment.getattr(l_1_f, 'disputed'), 'order'))
            yield '.</p>\n'
            if (environment.getattr(l_1_f, 'n_disputed') > t_4((undefined(name='rows') if l_1_rows is missing else l_1_rows))):
                pass
                yield '<p class="note">The first '
                yield escape(t_4((undefined(name='rows') if l_1_rows is missing else l_1_rows)))
                yield ' are shown; '
                yield escape(environment.getattr(environment.getattr(l_1_f, 'disputed'), 'file'))
                yield ' lists all '
                yield escape(environment.getattr(l_1_f, 'n_disputed'))
                yield '.</p>'
            yield '<p><label>Filter: <input class="filter" type="search" placeholder="task, annotator or label" data-table="dt-'
            yield escape((undefined(name='fi') if l_1_fi is missing else l_1_fi))
            yield '" data-count="dc-'
            yield escape((undefined(name='fi') if l_1_fi is missing else l_1_fi))
            yield '"></label>\n<span class="note"><span id="dc-'
            yield escape((undefined(name='fi') if l_1_fi is missing else l_1_fi))
            yield '">'
            yield escape(t_4((undefined(name='rows') if l_1_rows is missing else l_1_rows)))
            yield '</span> shown</span></p>\n<table class="disputed sortable" id="dt-'
            yield escape((undefined(name='fi') if l_1_fi is missing else l_1_fi))
            yield '">\n<thead><tr><th><button type="button">task</button></th><th class="r"><button type="button">priority</button></th><th class="r"><button type="button">score</button></th><th><button type="button">proposed</button></th>\n'
            l_1_spans = ((undefined(name='r') if l_1_r is missing else l_1_r) and (environment.getattr((undefined(name='r') if l_1_r is missing else l_1_r), 'shape') == 'span'))
            _loop_vars['spans'] = l_1_spans
            l_1_colors = context.call((undefined(name='label_colors') if l_1_label_colors is missing else l_1_label_colors), l_1_f, _loop_vars=_loop_vars)
            _loop_vars['colors'] = l_1_colors
            if (undefined(name='spans') if l_1_spans is missing else l_1_spans):
                pass
                yield '<th>text: each annotator\'s spans</th><th><button type="button">disagreements</button></th>'
            elif (not t_16((undefined(name='columns') if l_1_columns is missing else l_1_columns))):
                pass
                for l_2_a in (undefined(name='columns') if l_1_columns is missing else l_1_columns):
                    _loop_vars = {}
                    pass
                    yield '<th><button type="button">'
                    yield escape(l_2_a)
                    yield '</button></th>'
                l_2_a = missing
            else:
                pass
                yield '<th><button type="button">labels</button></th>'
            yield '</tr></thead>\n<tbody>\n'
            l_2_loop = missing
            for l_2_d, l_2_loop in LoopContext((undefined(name='rows') if l_1_rows is missing else l_1_rows), undefined):
                l_2_task_url = resolve('task_url')
                l_2_proposal = resolve('proposal')
                l_2_span_lines = resolve('span_lines')
                l_2_disagreement_kinds = resolve('disagreement_kinds')
                l_2_minority = resolve('minority')
                l_2_odd = resolve('odd')
                l_2_url = l_2_pr = l_2_lines = missing
                _loop_vars = {}
                pass
                l_2_url = context.call((undefined(name='task_url') if l_2_task_url is missing else l_2_task_url), environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'source'), environment.getattr(l_2_d, 'id'), _loop_vars=_loop_vars)
                _loop_vars['url'] = l_2_url
                yield '<tr><td data-sort="'
                yield escape(environment.getattr(l_2_d, 'id'))
                yield '">'
                if (undefined(name='url') if l_2_url is missing else l_2_url):
                    pass
                    yield '<a href="'
                    yield escape((undefined(name='url') if l_2_url is missing else l_2_url))
                    yield '" target="_blank" rel="noopener">'
                    yield escape(environment.getattr(l_2_d, 'id'))
                    yield '</a>'
                else:
                    pass
                    yield escape(environment.getattr(l_2_d, 'id'))
                yield '</td>'
                l_2_pr = environment.getattr(l_2_d, 'priority')
                _loop_vars['pr'] = l_2_pr
                yield '<td class="r" data-sort="'
                yield escape(((undefined(name='pr') if l_2_pr is missing else l_2_pr) if (not t_16((undefined(name='pr') if l_2_pr is missing else l_2_pr))) else ''))
                yield '">'
                yield escape(t_6((undefined(name='pr') if l_2_pr is missing else l_2_pr)))
                yield '</td><td class="r" data-sort="'
                yield escape(environment.getattr(l_2_d, 'score'))
                yield '">'
                yield escape(t_6(environment.getattr(l_2_d, 'score')))
                yield '</td><td>'
                yield escape(context.call((undefined(name='proposal') if l_2_proposal is missing else l_2_proposal), environment.getattr(l_2_d, 'consensus'), _loop_vars=_loop_vars))
                yield '</td>\n'
                l_2_lines = (context.call((undefined(name='span_lines') if l_2_span_lines is missing else l_2_span_lines), l_2_d, _loop_vars=_loop_vars) if (undefined(name='spans') if l_1_spans is missing else l_1_spans) else None)
                _loop_vars['lines'] = l_2_lines
                if (undefined(name='spans') if l_1_spans is missing else l_1_spans):
                    pass
                    yield '<td class="spans">'
                    if (undefined(name='lines') if l_2_lines is missing else l_2_lines):
                        pass
                        for (l_3_who, l_3_segments) in (undefined(name='lines') if l_2_lines is missing else l_2_lines):
                            _loop_vars = {}
                            pass
                            yield '<div><span class="who">'
                            yield escape(l_3_who)
                            yield '</span>: <span class="text">'
                            for (l_4_piece, l_4_labels) in l_3_segments:
                                _loop_vars = {}
                                pass
                                if l_4_labels:
                                    pass
                                    yield '<mark style="background: '
                                    yield escape(context.call(environment.getattr((undefined(name='colors') if l_1_colors is missing else l_1_colors), 'get'), environment.getitem(l_4_labels, 0), '#e4e7ec', _loop_vars=_loop_vars))
                                    yield '" title="'
                                    yield escape(t_3(context.eval_ctx, l_4_labels, ', '))
                                    yield '">'
                                    yield escape(l_4_piece)
                                    yield '<sup>'
                                    yield escape(t_3(context.eval_ctx, l_4_labels, '+'))
                                    yield '</sup></mark>'
                                else:
                                    pass
                                    yield escape(l_4_piece)
                            l_4_piece = l_4_labels = missing
                            yield '</span></div>'
                        l_3_who = l_3_segments = missing
                    else:
                        pass
                        for (l_3_k, l_3_v) in context.call(environment.getattr(environment.getattr(l_2_d, 'labels'), 'items'), _loop_vars=_loop_vars):
                            _loop_vars = {}
                            pass
                            yield '<div><span class="who">'
                            yield escape(l_3_k)
                            yield '</span>: '
                            yield escape(t_11(l_3_v))
                            yield '</div>'
                        l_3_k = l_3_v = missing
                    yield '</td><td>'
                    yield escape(context.call((undefined(name='disagreement_kinds') if l_2_disagreement_kinds is missing else l_2_disagreement_kinds), l_2_d, _loop_vars=_loop_vars))
                    yield '</td>\n'
                elif (not t_16((undefined(name='columns') if l_1_columns is missing else l_1_columns))):
                    pass
                    l_2_odd = context.call((undefined(name='minority') if l_2_minority is missing else l_2_minority), environment.getattr(l_2_d, 'labels'), _loop_vars=_loop_vars)
                    _loop_vars['odd'] = l_2_odd
                    for l_3_a in (undefined(name='columns') if l_1_columns is missing else l_1_columns):
                        _loop_vars = {}
                        pass
                        yield '<td'
                        if (l_3_a in (undefined(name='odd') if l_2_odd is missing else l_2_odd)):
                            pass
                            yield ' class="odd" title="differs from the most common label"'
                        yield '>'
                        yield escape((t_11(environment.getitem(environment.getattr(l_2_d, 'labels'), l_3_a)) if (l_3_a in environment.getattr(l_2_d, 'labels')) else ''))
                        yield '</td>'
                    l_3_a = missing
                else:
                    pass
                    yield '<td>'
                    l_3_loop = missing
                    for (l_3_k, l_3_v), l_3_loop in LoopContext(context.call(environment.getattr(environment.getattr(l_2_d, 'labels'), 'items'), _loop_vars=_loop_vars), undefined):
                        _loop_vars = {}
                        pass
                        yield escape(l_3_k)
                        yield ': '
                        yield escape(t_11(l_3_v))
                        if (not environment.getattr(l_3_loop, 'last')):
                            pass
                            yield '; '
                    l_3_loop = l_3_k = l_3_v = missing
                    yield '</td>'
                yield '</tr>\n'
            l_2_loop = l_2_d = l_2_task_url = l_2_url = l_2_pr = l_2_proposal = l_2_span_lines = l_2_lines = l_2_disagreement_kinds = l_2_minority = l_2_odd = missing
            yield '</tbody>\n</table>\n'
        yield '</section>\n'
    l_1_loop = l_1_name = l_1_f = l_1_fi = l_1_charts = l_1_figs = l_1_alpha_name = l_1_sampling_note = l_1_categories_text = l_1_r = l_1_m = l_1_u = l_1_confused_pairs = l_1_confused = l_1_offsets = l_1_skill_accuracy = l_1_accuracy = l_1_alpha_without_note = l_1_note = l_1_gt = l_1_t = l_1_change = l_1_disputed_rows = l_1_rows = l_1_columns = l_1_spans = l_1_label_colors = l_1_colors = missing
    if ((undefined(name='model_rows') if l_0_model_rows is missing else l_0_model_rows) or (undefined(name='model_note') if l_0_model_note is missing else l_0_model_note)):
        pass
        yield '<h2>Model predictions</h2>\n<p>Each model version against the human consensus, compared as an annotator is with ground truth; the annotators\' own agreement with that consensus is beside it (they are part of it, so it leans high). Predictions are never ratings in the agreement above. <em>Started from it</em>: agreement with the prediction of annotations that started from it, against those on the same tasks that did not.</p>\n<table id="models"><thead><tr>'
        for l_1_c in (undefined(name='model_columns') if l_0_model_columns is missing else l_0_model_columns):
            _loop_vars = {}
            pass
            yield '<th>'
            yield escape(l_1_c)
            yield '</th>'
        l_1_c = missing
        yield '</tr></thead><tbody>\n'
        for l_1_row in (undefined(name='model_rows') if l_0_model_rows is missing else l_0_model_rows):
            _loop_vars = {}
            pass
            yield '<tr>'
            for l_2_c in l_1_row:
                _loop_vars = {}
                pass
                yield '<td>'
                yield escape(l_2_c)
                yield '</td>'
            l_2_c = missing
            yield '</tr>\n'
        l_1_row = missing
        yield '</tbody></table>\n'
        if (undefined(name='model_note') if l_0_model_note is missing else l_0_model_note):
            pass
            yield '<p class="not-evaluated">Not evaluated: '
            yield escape((undefined(name='model_note') if l_0_model_note is missing else l_0_model_note))
            yield '.</p>'
        if (undefined(name='model_label_rows') if l_0_model_label_rows is missing else l_0_model_label_rows):
            pass
            yield '<table id="model-labels"><thead><tr><th>field</th><th>model version</th><th>consensus label</th><th>tasks</th><th>agreement</th></tr></thead><tbody>\n'
            for l_1_row in (undefined(name='model_label_rows') if l_0_model_label_rows is missing else l_0_model_label_rows):
                _loop_vars = {}
                pass
                yield '<tr>'
                for l_2_c in l_1_row:
                    _loop_vars = {}
                    pass
                    yield '<td>'
                    yield escape(l_2_c)
                    yield '</td>'
                l_2_c = missing
                yield '</tr>\n'
            l_1_row = missing
            yield '</tbody></table>\n'
    if environment.getattr((undefined(name='doc') if l_0_doc is missing else l_0_doc), 'writeback'):
        pass
        yield '<h2>Write-back</h2>\n<table id="writeback"><tbody>\n'
        for (l_1_k, l_1_v) in context.call(environment.getattr((undefined(name='writeback') if l_0_writeback is missing else l_0_writeback), 'items')):
            _loop_vars = {}
            pass
            yield '<tr><th>'
            yield escape(l_1_k)
            yield '</th><td>'
            yield escape((t_11(l_1_v) if (not t_15(l_1_v)) else t_12(context.eval_ctx, l_1_v)))
            yield '</td></tr>\n'
        l_1_k = l_1_v = missing
        yield '</tbody></table>\n'
    yield '<script>'
    yield escape((undefined(name='script') if l_0_script is missing else l_0_script))
    yield '</script>\n</body>\n</html>'

blocks = {}
debug_info = '1=120&2=137&8=154&9=156&37=158&38=160&39=162&40=165&42=167&50=183&51=193&52=195&53=201&54=205&55=217&60=224&61=228&62=238&63=247&67=255&68=257&70=261&72=268&73=273&74=291&77=302&79=309&81=313&83=326&86=330&87=352&88=354&89=357&90=359&91=363&96=380&97=384&98=387&99=399&103=409&104=414&105=420&110=423&111=427&112=430&113=434&114=449&115=460&119=471&121=476&122=478&123=480&125=483&126=494&127=500&128=532&129=548&132=554&134=557&135=564&136=571&137=576&138=581&139=586&142=592&143=594&144=610&146=613&147=615&151=630&152=632&155=635&157=642&158=645&159=649&160=652&161=662&165=687&166=694&167=697&168=706&169=710&170=716&171=725&176=743&178=746&179=748&181=751&185=761&190=775&191=777&194=780&195=793&196=806&197=820&200=826&201=829&202=840&203=842&204=846&205=848&206=858&207=862&208=866&210=868&211=870&212=872&214=889&215=899&216=902&217=928&218=930&219=975&226=1010&229=1013&230=1021&233=1035&234=1040&236=1043&241=1057&244=1060&248=1071'
