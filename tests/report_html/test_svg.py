"""The chart primitives (toolsearch_cli/htmlreport/svg.py): axes, scales, edge cases."""

from __future__ import annotations

import pytest

from toolsearch_cli.htmlreport.svg import Series, bar_chart, delta_chart, line_chart, nice_max, timeline

from .parse import ALLOWED, parse


@pytest.mark.parametrize(
    ("value", "top"), [(0.93, 1.0), (13028, 15000), (1, 1), (101, 150), (0, 1.0), (float("nan"), 1.0), (7, 8)]
)
def test_the_axis_top_is_a_round_number_at_or_above_the_largest_value(value, top):
    assert nice_max(value) == pytest.approx(top)


def test_a_chart_is_the_same_bytes_for_the_same_data_and_has_no_blank_line():
    series = [Series("a", [(1, 0.5), (2, 0.75)]), Series("b", [(1, 0.25), (2, 1.0)], dashed=True)]
    first = line_chart(series, title="t", x_label="k", y_label="r", y_max=1.0)
    assert first == line_chart(series, title="t", x_label="k", y_label="r", y_max=1.0)
    assert "\n\n" not in first and first.startswith("<svg") and first.endswith("</svg>")
    assert parse(first).tags() <= ALLOWED


def test_values_beyond_the_axis_stay_inside_the_plot():
    svg = line_chart([Series("a", [(1, -5.0), (2, 50.0)])], title="t", x_label="x", y_label="y", y_max=1.0)
    ys = [float(c.attrs["cy"]) for c in parse(svg).all("circle")]
    height = float(parse(svg).all("svg")[0].attrs["height"])
    assert all(0 < y < height for y in ys)


def test_edge_cases_draw_without_error():
    assert parse(line_chart([], title="none", x_label="x", y_label="y")).all("svg")
    assert parse(line_chart([Series("one", [(3, 2.0)])], title="one", x_label="x", y_label="y")).all("circle")
    bars = parse(bar_chart(["g"], [("s", [None])], title="t", y_label="y"))
    assert not [r for r in bars.all("rect") if r.title]  # no bar for a missing value
    deltas = parse(delta_chart([("m", 0.0, True), ("n", -0.2, True), ("o", -0.1, False)], title="d"))
    fills = [r.attrs["fill"] for r in deltas.all("rect") if r.title]
    assert fills == ["#666666", "#cf222e", "#1a7f37"]  # no change, a regression, an improvement (lower is better)
    grid = parse(timeline([], [], {}, title="empty", legend=[]))
    assert grid.all("svg")


def test_long_labels_are_cut_with_the_whole_in_the_tooltip():
    names = [f"{i}" + "x" * 200 for i in range(10)]  # ten groups: about 60 px each
    svg = parse(bar_chart(names, [("s", [0.5] * 10)], title="t", y_label="y"))
    labels = [e for e in svg.all("text") if e.attrs.get("text-anchor") == "middle" and e.attrs.get("fill") == "#444444"]
    cut = [t for t in svg.texts if t.endswith("…")]
    assert len(cut) == 10 and all(len(t) <= 9 for t in cut), cut
    assert len(labels) >= 10
    assert [r.title for r in svg.all("rect") if r.title] == [f"s · {n}: 0.500" for n in names]


def test_narrow_groups_are_labelled_every_few():
    groups = [str(i) for i in range(1, 61)]  # 60 groups: about 10 px each
    svg = parse(bar_chart(groups, [("s", [50.0] * 60)], title="t", y_label="y", y_max=100.0))
    labels = [t for t in svg.texts if t.isdigit() and 1 <= int(t) <= 60 and t not in ("20", "40", "60", "80", "100")]
    assert 10 <= len(labels) <= 30  # a label every third group or so, not 60 on top of each other
    assert len([r for r in svg.all("rect") if r.title]) == 60  # every bar still drawn
