"""The closing table of ``tox -e bench``: issue 12's targets, each with a verdict.

Each bench returns its measured figures; ``issue_rows`` turns them into one row per
target of the issue (what, measured, target, MET/MISSED), ``scale_rows`` into the
scale curve (item 4), which ``plot_scale`` also draws as a PNG under ``output_dir()``.
A bench that was not run (or failed) gives rows marked "not measured".
"""

import dataclasses
import os
import pathlib
import statistics
import textwrap

REPO = pathlib.Path(__file__).resolve().parents[2]

MET, MISSED, NOT_MEASURED = 'MET', 'MISSED', 'not measured'


@dataclasses.dataclass
class Row:
    what: str
    measured: str
    target: str
    met: bool | None = None  # None: nothing to judge (not measured, or no target)

    @property
    def verdict(self):
        if self.met is None:
            return NOT_MEASURED if self.measured == NOT_MEASURED else '-'
        return MET if self.met else MISSED


def output_dir():
    """Where benches write files: $PROVISIONER_TEST_OUTPUT_DIR/bench, else
    build/bench-output."""
    base = os.environ.get('PROVISIONER_TEST_OUTPUT_DIR')
    path = pathlib.Path(base) / 'bench' if base else REPO / 'build' / 'bench-output'
    path.mkdir(parents=True, exist_ok=True)
    return path


def percentile(samples, fraction):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def _wrap(text, width):
    """A cell's lines: words kept whole, as the tables print figures and names."""
    return textwrap.wrap(text, width, break_long_words=False,
                         break_on_hyphens=False) or ['']


def format_table(title, rows, widths=(34, 44, 26, 12)):
    """rows as a text table with wrapped cells (what, measured, target, verdict)."""
    header = ('what', 'measured', 'target', 'verdict')
    rule = '  '.join('=' * w for w in widths)
    out = [title, rule, '  '.join(h.ljust(w) for h, w in zip(header, widths)).rstrip(),
           rule]
    for row in rows:
        cells = [_wrap(str(c), w) for c, w in zip(
            (row.what, row.measured, row.target, row.verdict), widths)]
        for i in range(max(len(c) for c in cells)):
            out.append('  '.join((c[i] if i < len(c) else '').ljust(w)
                                 for c, w in zip(cells, widths)).rstrip())
    out.append(rule)
    return '\n'.join(out)


def _ms(value):
    return '%.0f ms' % value if value >= 10 else '%.1f ms' % value


def _startup_rows(startup):
    rows = []
    if startup is None:
        return [Row('CLI start-up (cold process)', NOT_MEASURED, '< 300 ms each')]
    for label, timing in startup.timings.items():
        if not timing.budget:
            continue
        heavy = '; imports %s' % ', '.join(timing.heavy) if timing.heavy else ''
        rows.append(Row(
            label, 'median %s (p90 %s, CPU %s), peak RSS %.0f MiB%s'
            % (_ms(timing.median_ms), _ms(timing.p90_ms), _ms(timing.cpu_ms),
               timing.rss_mib, heavy),
            '< 300 ms, nothing heavy imported', timing.within_budget))
    return rows


def _real_boot_rows(real):
    target, vi_target = '<= 1.0x the script', '<= 1.0x virt-install'
    if real is None:
        return [Row('real boot via the CLI vs a plain script', NOT_MEASURED, target),
                Row('real boot via the CLI vs virt-install', NOT_MEASURED, vi_target)]
    cli, script, inproc = real['cli'], real['script'], real['in-process']
    # The least a CLI that runs the flow itself can reach: the script plus a fresh
    # interpreter importing the flow's libraries, nothing else.
    floor = real.get('import_floor_s')
    floor_text = ('; floor %.2fx: the script plus %.2f s of importing the flow\'s '
                  'libraries' % ((script + floor) / script, floor)) if floor else ''
    rows = [Row('real boot to the guest\'s ready line via the CLI vs a plain '
                'qemu-img/genisoimage/virsh script, alternated %dx' % real['runs'],
                '%.2fx (CLI median %.2f s vs script %.2f s; in-process %.2fx%s)'
                % (cli / script, cli, script, inproc / script, floor_text), target,
                cli / script <= 1.0)]
    vi = real.get('virt-install')
    if vi is None:
        rows.append(Row('real boot via the CLI vs virt-install', NOT_MEASURED, vi_target))
    else:
        rows.append(Row('real boot to the guest\'s ready line via the CLI vs the same '
                        'script with virt-install making the domain, alternated %dx'
                        % real['runs'],
                        '%.2fx (CLI median %.2f s vs virt-install %.2f s; in-process '
                        '%.2fx)' % (cli / vi, cli, vi, inproc / vi), vi_target,
                        cli / vi <= 1.0))
    return rows


def _flow_rows(flow):
    target = '<= 1/10 of stock TaskFlow in the same run, and < 40 ms'
    if flow is None:
        return [Row('all-in-one boot flow, test:/// + SQLite', NOT_MEASURED, target)]
    ours, stock = statistics.median(flow['parallel']), statistics.median(flow['stock'])
    # The ratio of boots run side by side (alternated): what the machine's load blurs
    # least; the medians are shown too.
    ratio = statistics.median(s / o for o, s in zip(flow['parallel'], flow['stock']))
    # The floor: TaskFlow's engine and the steps alone, no flow store at all.
    floor = statistics.median(flow['memory'])
    return [Row('all-in-one boot flow on test:/// + SQLite, default parallel engine, '
                'vs stock TaskFlow backend, alternated in the same run',
                'median %s vs stock %s; 1/%.1f (median of the %d pairs); with no '
                "flow store at all (TaskFlow's in-memory backend) %s = 1/%.1f"
                % (_ms(ours), _ms(stock), ratio, len(flow['parallel']), _ms(floor),
                   stock / floor),
                target, ratio >= 10 and ours < 40)]


def _distributed_rows(dist):
    throughput_target = '>= 20 boots/s, accepted and finished'
    takeover_target = 'median < 3 s, p99 < 5 s'
    if dist is None or 'boots_per_s' not in dist:
        reason = (dist or {}).get('skipped', NOT_MEASURED)
        return [Row('boots/s, 2 engines + 2 workers', NOT_MEASURED if reason ==
                    NOT_MEASURED else '%s: %s' % (NOT_MEASURED, reason),
                    throughput_target),
                Row('takeover after kill -9 of an engine', NOT_MEASURED, takeover_target)]
    rows = [Row('boots/s, 2 engines + 2 workers, test:///, PostgreSQL, RabbitMQ, Redis',
                '%.1f boots/s (%d boots in %.1f s; accepted at %.1f/s)'
                % (dist['boots_per_s'], dist['boots'], dist['elapsed_s'],
                   dist['accepted_per_s']), throughput_target,
                dist['boots_per_s'] >= 20 and dist['accepted_per_s'] >= 20)]
    takeover = dist.get('takeover_ms')
    if takeover:
        median, p99 = statistics.median(takeover), percentile(takeover, 0.99)
        rows.append(Row('takeover after kill -9 of the engine running a boot, to that '
                        'boot active',
                        'median %.2f s, p99 %.2f s (n=%d; p99 of n<100 is the max)'
                        % (median / 1000, p99 / 1000, len(takeover)),
                        takeover_target, median < 3000 and p99 < 5000))
    else:
        rows.append(Row('takeover after kill -9 of an engine', NOT_MEASURED,
                        takeover_target))
    rows.append(_takeover_in_flight_row(dist.get('takeover_in_flight'), takeover_target))
    return rows


def _takeover_in_flight_row(figures, target):
    what = 'takeover with 200 boots in flight'
    if not figures or 'skipped' in figures:
        return Row(what, '%s: %s' % (NOT_MEASURED, figures['skipped']) if figures
                   else NOT_MEASURED, target)
    times = figures['takeover_s']
    median, p99 = statistics.median(times), percentile(times, 0.99)
    return Row('%s: kill -9 of an engine right after a burst of %d boot requests, to '
               'the boots it ran leased by the other engine' % (what, figures['boots']),
               'median %.2f s, p99 %.2f s (%d boots taken over; %d of the %d still in '
               'flight at the kill, the rest done; end states: %s)'
               % (median, p99, len(times), figures['in_flight'], figures['boots'],
                  ', '.join('%s %d' % kv for kv in sorted(figures['end_states'].items()))),
               target, median < 3 and p99 < 5)


def _distributed_rss(dist):
    """'after N boots: host MiB, ...' of the distributed engines' last RSS reading."""
    point = ((dist or {}).get('engine_rss') or [None])[-1]
    if point is None:
        return None
    return 'distributed engines after {:,} boots: {}'.format(
        point['boots'], ', '.join('%s %.0f MiB' % (host, mib)
                                  for host, mib in sorted(point['mib'].items())))


def _memory_rows(memory, dist):
    """Engine RSS after 10,000 boots (tests/bench/memory.py), the distributed
    engines' last reading as detail."""
    target = 'no growth beyond caches with a bound (< 3 MiB over the last 5,000 boots)'
    detail = _distributed_rss(dist)
    if memory is None:
        return [Row('engine RSS after 10,000 boots', detail or NOT_MEASURED, target)]
    first, last = memory['points'][0], memory['points'][-1]
    if memory['tail_mib'] is None:
        tail = 'too few boots to tell'
    elif memory['extrapolated']:
        tail = '{:+.1f} MiB extrapolated over {:,} ({:+.2f} MiB per 1,000)'.format(
            memory['tail_mib'], memory['tail_boots'], memory['slope_mib_per_1000'])
    else:
        tail = '{:+.1f} MiB over the last {:,}'.format(memory['tail_mib'],
                                                      memory['tail_boots'])
    measured = '{:.0f} MiB at 0, {:.0f} MiB after {:,} boots; {}'.format(
        first['mib'], last['mib'], last['boots'], tail)
    return [Row('engine RSS after {:,} boots, one process (all-in-one runner, serial '
                'steps, test:/// + SQLite, each deleted)'.format(last['boots']),
                measured + ('; %s' % detail if detail else ''), target,
                memory['levelled'] if memory['tail_mib'] is not None else None)]


def issue_rows(results):
    """One row per target of issue 12's table, from the benches' results by name."""
    return (_startup_rows(results.get('startup')) + _real_boot_rows(results.get('real'))
            + _flow_rows(results.get('flow')) + _distributed_rows(results.get('distributed'))
            + _memory_rows(results.get('memory'), results.get('distributed')))


def scale_rows(results):
    """Issue 12 item 4: how cost grows with work."""
    rows = []
    dist = results.get('distributed') or {}
    for level in dist.get('in_flight', []):
        if level.get('skipped'):
            rows.append(Row('{:,} boots in flight'.format(level['boots']),
                            '%s: %s' % (NOT_MEASURED, level['skipped']), '-'))
            continue
        rows.append(Row(
            '{:,} boots in flight (2 engines + 2 workers, test:///)'.format(level['boots']),
            '%.1f boots/s; step p99 %s (median %s); boot p99 %.2f s'
            % (level['boots_per_s'], _ms(level['step_p99_ms']),
               _ms(level['step_median_ms']), level['boot_p99_s']), '-'))
    for point in dist.get('engine_rss', []):
        rows.append(Row('engine RSS after {:,} boots'.format(point['boots']),
                        ', '.join('%s %.0f MiB' % (host, mib)
                                  for host, mib in sorted(point['mib'].items())),
                        'no growth beyond bounded caches'))
    if not dist.get('in_flight'):
        rows.append(Row('boots in flight, engine RSS', NOT_MEASURED, '-'))
    scheduler = results.get('scheduler')
    if scheduler:
        for point in scheduler['selection']:
            rows.append(Row('host selection over {:,} hosts ({})'.format(
                point['hosts'], point['backend']),
                            'median %s, p90 %s (n=%d)'
                            % (_ms(point['median_ms']), _ms(point['p90_ms']),
                               point['runs']), '-'))
    else:
        rows.append(Row('host selection over 10,000 and 100,000 hosts', NOT_MEASURED,
                        '-'))
    return rows


def plot_scale(results, path):
    """Draw the scale curve as a PNG; the path written, or None without matplotlib."""
    try:
        import matplotlib
        matplotlib.use('Agg')
        from matplotlib import pyplot
    except ImportError:
        return None
    dist = results.get('distributed') or {}
    levels = [lv for lv in dist.get('in_flight', []) if not lv.get('skipped')]
    rss = dist.get('engine_rss', [])
    selection = (results.get('scheduler') or {}).get('selection', [])
    figure, axes = pyplot.subplots(2, 2, figsize=(11, 8))
    figure.suptitle('provisioner: cost as work grows (tox -e bench, issue 12 item 4)')

    ax = axes[0][0]
    if levels:
        ax.plot([lv['boots'] for lv in levels], [lv['boots_per_s'] for lv in levels],
                'o-', label='measured')
        ax.axhline(20, color='grey', linestyle='--', label='target 20/s')
        ax.set_xscale('log')
        ax.legend()
    ax.set_title('throughput, 2 engines + 2 workers')
    ax.set_xlabel('boots in flight')
    ax.set_ylabel('boots/s')

    ax = axes[0][1]
    if levels:
        x = [lv['boots'] for lv in levels]
        ax.plot(x, [lv['step_p99_ms'] for lv in levels], 'o-', label='step p99')
        ax.plot(x, [lv['step_median_ms'] for lv in levels], 's--', label='step median')
        ax.plot(x, [lv['boot_p99_s'] * 1000 for lv in levels], '^-',
                label='whole boot p99')
        ax.set_xscale('log')
        ax.set_yscale('log')
        ax.legend()
    ax.set_title('latency')
    ax.set_xlabel('boots in flight')
    ax.set_ylabel('ms')

    ax = axes[1][0]
    if rss:
        for host in sorted(rss[0]['mib']):
            ax.plot([p['boots'] for p in rss], [p['mib'][host] for p in rss], 'o-',
                    label=host)
        ax.set_ylim(bottom=0)
        ax.legend(loc='lower right')
    ax.set_title('engine RSS')
    ax.set_xlabel('boots since the engines started')
    ax.set_ylabel('MiB')

    ax = axes[1][1]
    for backend in sorted({p['backend'] for p in selection}):
        points = sorted((p['hosts'], p['median_ms']) for p in selection
                        if p['backend'] == backend)
        ax.plot([h for h, _ in points], [m for _, m in points], 'o-', label=backend)
    if selection:
        ax.set_xscale('log')
        ax.legend()
    ax.set_title('host selection (all hosts pass the filters)')
    ax.set_xlabel('hosts')
    ax.set_ylabel('median ms')

    for ax, measured in ((axes[0][0], levels), (axes[0][1], levels), (axes[1][0], rss),
                         (axes[1][1], selection)):
        if not measured:
            ax.text(0.5, 0.5, 'not measured in this run', ha='center', va='center',
                    transform=ax.transAxes, color='grey')
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    pyplot.close(figure)
    return path
