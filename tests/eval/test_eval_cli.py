"""``toolsearch eval`` end to end: exit code, stdout and stderr, on small catalogs written here."""

from __future__ import annotations

import json
import math

import pytest

from ..conftest import DEMO

CATALOG = """\
tools:
  - name: getWeather
    description: Get the current weather forecast for a city.
    category: weather
    examples: ["weather forecast for Paris", "will it rain tomorrow"]
  - name: getAirQuality
    description: Air quality index and pollution level for a city.
    category: weather
    examples: ["air pollution in Beijing"]
  - name: sendEmail
    description: Send an email message to a recipient.
    category: messaging
    examples: ["email my boss"]
  - name: sendSms
    description: Send a text message to a phone number.
    category: messaging
    examples: ["text my mom on her phone"]
  - name: refundPayment
    description: Refund a payment to a customer.
    category: payments
    examples: ["give the customer their money back"]
"""

# By hand (default ranker): q1-q3 rank 1, q4's getWeather ranks 2 (getAirQuality first),
# q5 finds nothing. R@1 3/5, R@5 4/5, MRR (3 + 1/2) / 5, NDCG@5 (3 + 1/log2 3) / 5.
QUERIES = """\
- {id: q1, query: weather forecast, relevant: [getWeather], subset: weather}
- {id: q2, query: air pollution, relevant: [getAirQuality], subset: weather}
- {id: q3, query: refund a customer payment, relevant: [refundPayment], subset: payments}
- {id: q4, query: city pollution index, relevant: [getWeather], subset: weather}
- {id: q5, query: quantum physics, relevant: [sendEmail], subset: other}
"""

# The next catalog version: getWeather now mentions the pollution index (q4 moves to rank 1),
# and a new refund tool outranks refundPayment on q3 (rank 1 -> 2).
CATALOG_V2 = CATALOG.replace(
    "Get the current weather forecast for a city.", "Weather forecast for a city, and the city pollution index."
) + (
    "  - name: refundCustomerPayment\n"
    "    description: Refund a customer payment, a customer refund for a card payment.\n"
    "    category: payments\n"
)

KEYS = ["queries", "recall@1", "recall@5", "recall@10", "ndcg@5", "ndcg@10", "mrr", "ms_per_query"]


@pytest.fixture
def files(write):
    return {"catalog": str(write("cat.yaml", CATALOG)), "queries": str(write("q.yaml", QUERIES))}


def run_eval(run_cli, files, *args):
    return run_cli("eval", "--catalog", files["catalog"], "--queries", files["queries"], *args)


def test_json_shape_is_the_documented_api(run_cli, files):
    result = run_eval(run_cli, files, "--format", "json")
    assert result.code == 0, result.stderr
    data = result.json()
    assert list(data) == ["rankers"]
    assert list(data["rankers"]) == ["default"]
    metrics = data["rankers"]["default"]
    assert list(metrics) == KEYS
    assert metrics["queries"] == 5
    assert metrics["recall@1"] == pytest.approx(3 / 5)
    assert metrics["recall@5"] == pytest.approx(4 / 5)
    assert metrics["recall@10"] == pytest.approx(4 / 5)
    assert metrics["mrr"] == pytest.approx(3.5 / 5)
    assert metrics["ndcg@5"] == pytest.approx((3 + 1 / math.log2(3)) / 5)
    assert metrics["ms_per_query"] >= 0
    assert result.stderr == ""


def test_k_list_decides_the_recall_and_ndcg_keys(run_cli, files):
    result = run_eval(run_cli, files, "--k", "3,1", "-f", "json")
    assert result.code == 0, result.stderr
    assert list(result.json()["rankers"]["default"]) == [
        "queries",
        "recall@1",
        "recall@3",
        "ndcg@3",
        "mrr",
        "ms_per_query",
    ]


@pytest.mark.parametrize("bad", ["0", "1,x", "", "51"])
def test_bad_k_is_a_usage_error(run_cli, files, bad):
    result = run_eval(run_cli, files, "--k", bad)
    assert result.code == 2
    assert "--k takes whole numbers 1..50" in result.stderr
    assert result.stdout == ""


def test_several_rankers_side_by_side_in_one_table(run_cli, files):
    result = run_eval(run_cli, files, "--ranker", "default,classic")
    assert result.code == 0, result.stderr
    lines = result.stdout.splitlines()
    header = next(line for line in lines if "R@1" in line)
    for column in ("queries", "R@1", "R@5", "R@10", "NDCG@5", "NDCG@10", "MRR", "ms/q"):
        assert column in header
    default_row = next(line for line in lines if line.strip().startswith("default"))
    assert "0.600" in default_row and "0.800" in default_row and "0.700" in default_row
    assert any(line.strip().startswith("classic") for line in lines)
    assert "5 queries from" in result.stdout
    data = run_eval(run_cli, files, "-r", "default,classic", "-f", "json").json()
    assert list(data["rankers"]) == ["default", "classic"]
    assert all(list(m) == KEYS for m in data["rankers"].values())


def test_ranker_all_and_unknown_ranker(run_cli, files):
    data = run_eval(run_cli, files, "-r", "all", "-f", "json").json()
    assert {"default", "classic"} <= set(data["rankers"])
    result = run_eval(run_cli, files, "-r", "default,clasic")
    assert result.code == 2
    assert "unknown ranker 'clasic' (did you mean 'classic'?)" in result.stderr


def test_by_subset_json_and_table(run_cli, files):
    result = run_eval(run_cli, files, "--by", "subset", "-f", "json")
    assert result.code == 0, result.stderr
    data = result.json()
    assert list(data) == ["rankers", "by_subset"]
    by = data["by_subset"]
    assert sorted(by) == ["other", "payments", "weather"]
    weather = by["weather"]["default"]
    assert list(weather) == KEYS
    assert weather["queries"] == 3
    assert weather["recall@1"] == pytest.approx(2 / 3)
    assert weather["mrr"] == pytest.approx(2.5 / 3)
    assert by["other"]["default"]["recall@10"] == 0.0
    assert by["payments"]["default"]["recall@1"] == 1.0
    table = run_eval(run_cli, files, "--by", "subset", "-r", "default,classic")
    assert "by subset" in table.stdout
    rows = [line.split() for line in table.stdout.splitlines() if line.strip().startswith("weather")]
    assert [row[2] for row in rows] == ["default", "classic"]


def test_by_an_unknown_field_is_an_error(run_cli, files):
    result = run_eval(run_cli, files, "--by", "tier")
    assert result.code == 2
    assert "no query has the field 'tier'" in result.stderr


def test_examples_are_the_queries_without_a_queries_file(run_cli, files, tmp_path):
    save = tmp_path / "run.json"
    result = run_cli("eval", "-c", files["catalog"], "-f", "json", "--save", str(save))
    assert result.code == 0, result.stderr
    assert result.json()["rankers"]["default"]["queries"] == 6  # one per example
    doc = json.loads(save.read_text())
    assert doc["queries_source"] == "examples"
    assert {q["id"]: q["relevant"] for q in doc["query_set"]} == {
        "getWeather#1": ["getWeather"],
        "getWeather#2": ["getWeather"],
        "getAirQuality#1": ["getAirQuality"],
        "sendEmail#1": ["sendEmail"],
        "sendSms#1": ["sendSms"],
        "refundPayment#1": ["refundPayment"],
    }
    assert {q["query"] for q in doc["query_set"]} >= {"weather forecast for Paris", "email my boss"}
    # the subset of an example is its tool's category
    by = run_cli("eval", "-c", files["catalog"], "--by", "subset", "-f", "json").json()["by_subset"]
    assert {name: v["default"]["queries"] for name, v in by.items()} == {"messaging": 2, "payments": 1, "weather": 3}
    table = run_cli("eval", "-c", files["catalog"])
    assert "6 queries from catalog examples" in table.stdout


def test_a_catalog_without_examples_needs_a_queries_file(run_cli, write):
    path = write("bare.yaml", "tools:\n  - name: getWeather\n    description: weather\n")
    result = run_cli("eval", "-c", str(path))
    assert result.code == 2
    assert "has no examples to use as queries" in result.stderr and "--queries FILE" in result.stderr


def test_category_field_passes_each_querys_category_to_search(run_cli, files, write):
    path = write(
        "qc.yaml",
        "- {id: c1, query: email the customer a notice about the refund of their payment, relevant: [sendEmail],"
        " category: messaging}\n"
        "- {id: c2, query: weather forecast, relevant: [getWeather]}\n",
    )
    base = ["eval", "-c", files["catalog"], "-q", str(path), "-f", "json"]
    plain = run_cli(*base).json()["rankers"]["default"]
    filtered = run_cli(*base, "--category-field", "category").json()["rankers"]["default"]
    # unfiltered, refundPayment outranks sendEmail; within messaging, sendEmail comes first
    assert plain["recall@1"] == pytest.approx(1 / 2)
    assert filtered["recall@1"] == 1.0
    # with examples as queries, 'category' is the tool's own category
    examples = run_cli("eval", "-c", files["catalog"], "--category-field", "category", "-f", "json")
    assert examples.code == 0, examples.stderr
    assert examples.json()["rankers"]["default"]["queries"] == 6


def test_category_field_errors_name_the_file_line_and_field(run_cli, files, write):
    path = write(
        "qc.yaml",
        "- {id: c1, query: send a message, relevant: [sendEmail], category: messaging}\n"
        "- id: c2\n  query: weather\n  relevant: [getWeather]\n  category: wether\n",
    )
    result = run_cli("eval", "-c", files["catalog"], "-q", str(path), "--category-field", "category")
    assert result.code == 2
    assert f"{path}:5: field 'category': query 'c2': no tool has category 'wether' (did you mean 'weather'?)" in (
        result.stderr
    )
    missing = run_cli("eval", "-c", files["catalog"], "-q", str(path), "--category-field", "categry")
    assert missing.code == 2
    assert "no query has the field 'categry' given by --category-field (did you mean 'category'?)" in missing.stderr


def test_failures_list_the_worst_misses_with_what_ranked_above(run_cli, files):
    result = run_eval(run_cli, files, "--failures", "5")
    assert result.code == 0, result.stderr
    out = result.stdout
    assert "worst misses" in out
    # worst first: the tool that was not returned at all, then the one at rank 2
    assert out.index("1. [default] q5") < out.index("2. [default] q4")
    assert "expected sendEmail: not returned: it scored 0 for this query" in out
    assert "expected getWeather: rank 2" in out and "1 other tool above" in out
    above = out[out.index("2. [default] q4") :]
    assert "above #1 getAirQuality" in above
    assert "pollution→description" in above  # why getAirQuality won
    assert "city→description" in above  # and what getWeather matched
    for perfect in ("q1", "q2", "q3"):
        assert f"[default] {perfect} " not in out


def test_failures_json_and_the_limit(run_cli, files):
    data = run_eval(run_cli, files, "--failures", "1", "-f", "json").json()
    assert list(data) == ["rankers", "failures"]
    assert [m["id"] for m in data["failures"]["default"]] == ["q5"]
    data = run_eval(run_cli, files, "--failures", "3", "-f", "json").json()
    misses = data["failures"]["default"]
    assert [(m["id"], m["tool"], m["rank"]) for m in misses] == [("q5", "sendEmail", None), ("q4", "getWeather", 2)]
    q4 = misses[1]
    assert q4["above_count"] == 1
    assert [h["name"] for h in q4["above"]] == ["getAirQuality"]
    assert {c["term"] for c in q4["above"][0]["explanation"]} >= {"pollution", "index"}
    assert [c["term"] for c in q4["explanation"]] == ["city"]


def test_no_misses_says_so(run_cli, files, write):
    path = write("ok.yaml", "- {id: a, query: weather forecast, relevant: [getWeather]}\n")
    result = run_cli("eval", "-c", files["catalog"], "-q", str(path), "--failures", "3")
    assert result.code == 0
    assert "no misses" in result.stdout


def test_save_writes_every_querys_ranks_and_the_metrics(run_cli, files, tmp_path):
    save = tmp_path / "out" / "run.json"
    result = run_eval(run_cli, files, "-r", "default,classic", "--save", str(save), "-f", "json")
    assert result.code == 0, result.stderr
    assert f"saved the run to {save}" in result.stderr
    doc = json.loads(save.read_text())
    assert doc["rankers"] == result.json()["rankers"]
    assert doc["ks"] == [1, 5, 10] and doc["depth"] == 10
    assert doc["ranks"]["default"] == {
        "q1": {"getWeather": 1},
        "q2": {"getAirQuality": 1},
        "q3": {"refundPayment": 1},
        "q4": {"getWeather": 2},
        "q5": {"sendEmail": None},
    }
    assert set(doc["ranks"]) == {"default", "classic"}
    assert [q["id"] for q in doc["query_set"]] == ["q1", "q2", "q3", "q4", "q5"]
    assert list(tmp_path.joinpath("out").iterdir()) == [save]  # no temp file left behind


def test_baseline_lists_queries_that_moved_out_of_and_into_the_top_k(run_cli, files, write, tmp_path):
    save = tmp_path / "before.json"
    assert run_eval(run_cli, files, "--save", str(save)).code == 0
    write("cat.yaml", CATALOG_V2)  # the catalog changes between the two runs
    result = run_eval(run_cli, files, "--baseline", str(save), "--diff-k", "1", "-f", "json")
    assert result.code == 0, result.stderr
    diff = result.json()["baseline"]
    assert diff["k"] == 1 and diff["file"] == str(save)
    default = diff["rankers"]["default"]
    assert default["moved_out"] == [
        {"id": "q3", "query": "refund a customer payment", "tool": "refundPayment", "before": 1, "after": 2}
    ]
    assert default["moved_in"] == [
        {"id": "q4", "query": "city pollution index", "tool": "getWeather", "before": 2, "after": 1}
    ]
    assert default["rank_changes"] == 2
    assert default["metrics"]["recall@1"]["baseline"] == pytest.approx(0.6)
    assert default["metrics"]["recall@1"]["delta"] == pytest.approx(0.0)
    assert default["metrics"]["mrr"]["delta"] == pytest.approx(0.0)  # one up, one down
    # at the default k (5) nothing crossed the line
    at5 = run_eval(run_cli, files, "--baseline", str(save), "-f", "json").json()["baseline"]
    assert at5["k"] == 5
    assert at5["rankers"]["default"]["moved_out"] == [] and at5["rankers"]["default"]["moved_in"] == []
    text = run_eval(run_cli, files, "--baseline", str(save), "--diff-k", "1").stdout
    assert "compared with" in text
    out_part = text[text.index("moved out of the top 1") : text.index("moved into the top 1")]
    assert "q3  refundPayment  rank 1 → 2" in out_part and "q4" not in out_part
    assert "q4  getWeather  rank 2 → 1" in text[text.index("moved into the top 1") :]


def test_baseline_and_save_may_be_the_same_file(run_cli, files, write, tmp_path):
    ratchet = tmp_path / "ratchet.json"
    assert run_eval(run_cli, files, "--save", str(ratchet)).code == 0
    write("cat.yaml", CATALOG_V2)
    first = run_eval(run_cli, files, "--baseline", str(ratchet), "--save", str(ratchet), "--diff-k", "1", "-f", "json")
    assert [e["id"] for e in first.json()["baseline"]["rankers"]["default"]["moved_out"]] == ["q3"]
    again = run_eval(run_cli, files, "--baseline", str(ratchet), "--diff-k", "1", "-f", "json").json()["baseline"]
    assert again["rankers"]["default"]["moved_out"] == [] and again["rankers"]["default"]["rank_changes"] == 0


def test_diff_k_deeper_than_the_ranking_is_an_error(run_cli, files, tmp_path):
    save = tmp_path / "before.json"
    assert run_eval(run_cli, files, "--save", str(save)).code == 0
    result = run_eval(run_cli, files, "--baseline", str(save), "--diff-k", "20", "--k", "1,20")
    assert result.code == 2
    assert "--diff-k 20 is deeper than the runs were ranked (10)" in result.stderr


def test_baseline_notes_rankers_and_queries_it_cannot_compare(run_cli, files, write, tmp_path):
    save = tmp_path / "before.json"
    assert run_eval(run_cli, files, "--save", str(save)).code == 0
    write("q.yaml", QUERIES + "- {id: q6, query: email, relevant: [sendEmail]}\n")
    diff = run_eval(run_cli, files, "-r", "default,classic", "--baseline", str(save), "-f", "json").json()["baseline"]
    assert diff["rankers_not_in_baseline"] == ["classic"]
    assert diff["rankers"]["default"]["queries_only_now"] == ["q6"]


def test_a_baseline_of_another_ranker_or_a_diff_k_without_baseline_is_an_error(run_cli, files, tmp_path):
    save = tmp_path / "classic.json"
    assert run_eval(run_cli, files, "-r", "classic", "--save", str(save)).code == 0
    other = run_eval(run_cli, files, "--baseline", str(save))
    assert other.code == 2
    assert "holds runs of classic, this run is of default" in other.stderr and len(other.stderr.splitlines()) == 1
    alone = run_eval(run_cli, files, "--diff-k", "3")
    assert alone.code == 2 and "--diff-k sets the cut-off of a baseline comparison" in alone.stderr


def test_a_bad_baseline_file_is_a_one_line_error(run_cli, files, write):
    not_a_run = write("other.json", '{"rankers": {}}')
    result = run_eval(run_cli, files, "--baseline", str(not_a_run))
    assert result.code == 2
    assert result.stderr.strip() == f"error: {not_a_run}:1: not a run saved by `toolsearch eval --save`"
    broken = write("broken.json", '{"tool": "toolsearch eval",\n  "rankers": }')
    result = run_eval(run_cli, files, "--baseline", str(broken))
    assert result.code == 2 and f"{broken}:2: malformed JSON" in result.stderr
    missing = run_eval(run_cli, files, "--baseline", str(write("x", "")) + ".missing")
    assert missing.code == 2 and "cannot read the baseline" in missing.stderr


def test_gate_pass_exits_0(run_cli, files):
    result = run_eval(run_cli, files, "--min", "recall@5=0.8", "--min", "mrr=0.7", "-f", "json")
    assert result.code == 0, result.stderr
    assert "gate passed: default recall@5 = 0.800 >= 0.8" in result.stderr
    assert "gate passed: default mrr = 0.700 >= 0.7" in result.stderr
    data = result.json()  # stdout stays pure JSON
    assert [(g["metric"], g["passed"]) for g in data["gates"]] == [("recall@5", True), ("mrr", True)]


def test_gate_fail_exits_1_and_names_the_gate_and_value(run_cli, files):
    result = run_eval(run_cli, files, "--min", "recall@5=0.5", "--min", "recall@1=0.9")
    assert result.code == 1
    assert "gate passed: default recall@5 = 0.800 >= 0.5" in result.stderr
    assert "gate failed: default recall@1 = 0.600 < 0.9 (--min recall@1=0.9)" in result.stderr
    assert "R@1" in result.stdout  # the table is still printed


def test_gate_for_one_ranker_only(run_cli, files):
    result = run_eval(run_cli, files, "-r", "default,classic", "--min", "default:recall@5=0.8")
    assert result.code == 0, result.stderr
    assert "classic" not in result.stderr
    both = run_eval(run_cli, files, "-r", "default,classic", "--min", "recall@5=0.8", "-f", "json")
    assert {g["ranker"] for g in both.json()["gates"]} == {"default", "classic"}


@pytest.mark.parametrize(
    ("gate", "message"),
    [
        ("recal@5=0.8", "unknown metric 'recal@5' (did you mean 'recall@5'?)"),
        ("recall@3=0.8", "add 3 to --k to measure it"),
        ("recall@5", "--min takes METRIC=VALUE (e.g. recall@5=0.8), not 'recall@5'"),
        ("recall@5=high", "'high' is not a number"),
        ("bm25:recall@5=0.8", "ranker 'bm25' is not evaluated"),
    ],
)
def test_bad_gate_exits_2_before_running(run_cli, files, gate, message):
    result = run_eval(run_cli, files, "--min", gate)
    assert result.code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]


@pytest.mark.parametrize(
    ("name", "text", "where", "message"),
    [
        (
            "missing.yaml",
            "- {id: a, query: weather, relevant: [getWeather]}\n- id: b\n  query: no labels\n",
            ":2: field 'relevant'",
            "each query needs 'relevant'",
        ),
        (
            "typo.yaml",
            "- id: a\n  query: weather\n  relevant: [getWether]\n",
            ":3: tool 'getWether', field 'relevant'",
            "query 'a': names a tool that is not in the catalog (did you mean 'getWeather'?)",
        ),
        ("broken.yaml", "- {id: a, query: weather\n- {id: b}\n", ":2: malformed YAML", ""),
        (
            "noid.yaml",
            "- {query: weather, relevant: [getWeather]}\n",
            ":1: field 'id'",
            "each query needs an 'id'",
        ),
        (
            "dup.yaml",
            "- {id: a, query: weather, relevant: [getWeather]}\n- {id: a, query: rain, relevant: [getWeather]}\n",
            ":2: field 'id'",
            "duplicate query id (first at line 1)",
        ),
        (
            "string.yaml",
            "- {id: a, query: weather, relevant: getWeather}\n",
            ":1: field 'relevant'",
            "write ['getWeather']",
        ),
        ("empty.yaml", "", "", "holds no queries"),
        ("mapping.yaml", "queries: []\n", ":1:", "must be a list"),
        (
            "list.json",
            '[\n  {"id": "a", "query": "weather", "relevant": ["getWeather"]},\n\n  {"id": "b", "query": "mail"}\n]\n',
            ":4: field 'relevant'",
            "each query needs 'relevant'",
        ),
        ("broken.json", '[\n  {"id": "a",\n   "query": }\n]\n', ":3: malformed JSON", ""),
        (
            "lines.jsonl",
            '{"id": "a", "query": "weather", "relevant": ["getWeather"]}\n\n'
            '{"id": "b", "query": "x", "relevant": [""]}\n',
            ":3: field 'relevant'",
            "non-empty list of tool names",
        ),
        ("bad.jsonl", '{"id": "a", "query": "w", "relevant": ["getWeather"]}\n{"id":\n', ":2: malformed JSON", ""),
    ],
)
def test_bad_queries_file_is_one_line_with_file_and_line(run_cli, files, write, name, text, where, message):
    path = write(name, text)
    result = run_cli("eval", "-c", files["catalog"], "-q", str(path))
    assert result.code == 2, result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: {path}{where}"), lines[0]
    assert message in lines[0]
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_json_and_jsonl_queries_give_the_same_metrics_as_yaml(run_cli, files, write):
    items = [
        {"id": "q1", "query": "weather forecast", "relevant": ["getWeather"]},
        {"id": "q4", "query": "city pollution index", "relevant": ["getWeather"]},
    ]
    as_json = write("q.json", json.dumps(items, indent=2))
    as_jsonl = write("q.jsonl", "\n".join(json.dumps(i) for i in items) + "\n")
    as_yaml = write("q2.yaml", "".join(f"- {json.dumps(i)}\n" for i in items))
    results = [
        run_cli("eval", "-c", files["catalog"], "-q", str(p), "-f", "json").json()["rankers"]["default"]
        for p in (as_json, as_jsonl, as_yaml)
    ]
    for r in results:
        r.pop("ms_per_query")
    assert results[0] == results[1] == results[2]
    assert results[0]["mrr"] == pytest.approx(0.75)


def test_resident_tools_cannot_be_expected(run_cli, write):
    catalog = write("c.yaml", "resident: [now]\ntools:\n  - {name: now, description: current time}\n  - {name: b}\n")
    queries = write("q.yaml", "- {id: a, query: time, relevant: [now]}\n")
    result = run_cli("eval", "-c", str(catalog), "-q", str(queries))
    assert result.code == 2
    assert "names a resident tool, which search never returns" in result.stderr


def test_progress_bar_on_a_terminal_and_none_when_piped(run_cli, files, monkeypatch):
    piped = run_eval(run_cli, files, "-f", "json")
    assert piped.stderr == ""
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("TERM", "xterm-256color")
    shown = run_eval(run_cli, files, "-r", "default,classic")
    assert shown.code == 0
    assert "eval default" in shown.stderr and "eval classic" in shown.stderr
    assert "5/5" in shown.stderr
    quiet = run_eval(run_cli, files, "-r", "default,classic", "-f", "json")  # JSON: never a bar (issue 36)
    assert quiet.stderr == ""
    assert list(quiet.json()["rankers"]) == ["default", "classic"]


def test_eval_is_listed_in_help(run_cli):
    result = run_cli("eval", "--help")
    assert result.code == 0
    for option in ("--queries", "--ranker", "--k", "--category-field", "--by", "--failures", "--save", "--baseline"):
        assert option in result.stdout
    assert "--min" in result.stdout


def test_by_a_field_no_query_has_is_an_error_like_category_field(run_cli, write):
    queries = write("q.yaml", "- id: a\n  query: weather\n  relevant: [getWeather]\n")
    for field in ("subset", "categry"):
        result = run_cli("eval", "--catalog", str(DEMO), "--queries", str(queries), "--by", field)
        assert result.code == 2 and result.stdout == ""
        assert f"no query has the field {field!r} given by --by" in result.stderr
    result = run_cli("eval", "--catalog", str(DEMO), "--by", "categry")  # examples: category and subset
    assert "(did you mean 'category'?); fields: category, subset" in result.stderr


def test_a_misspelt_query_key_is_named_and_pointed_at(run_cli, write):
    queries = write("q.yaml", "- id: a\n  relevant: [getWeather]\n  qury: weather\n")
    result = run_cli("eval", "--catalog", str(DEMO), "--queries", str(queries))
    assert result.code == 2
    assert f"{queries}:3: field 'qury': each query needs a 'query' string; is 'qury' a misspelling of 'query'?" in (
        result.stderr
    )


def test_queries_naming_tools_the_catalog_lacks_are_skipped_with_a_warning_and_a_count(run_cli, files, write):
    """A server that did not start takes its tools out of the catalog: the queries that expect
    them are skipped (a warning each and a count), the others measured; --strict refuses."""
    broken = "broken=mcp+stdio:/nonexistent/server-that-is-not-there"
    queries = write(
        "mixed.yaml",
        QUERIES
        + "- {id: s1, query: list the issues, relevant: [list_issues]}\n"
        + "- {id: s2, query: weather or issues, relevant: [getWeather, create_issue]}\n",
    )
    args = ("eval", "-c", files["catalog"], "-c", broken, "-q", str(queries), "-f", "json")
    result = run_cli(*args)
    assert result.code == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["skipped"] == ["s1", "s2"]
    assert payload["rankers"]["default"]["queries"] == 5  # the figures of QUERIES alone
    expected = json.loads(run_eval(run_cli, files, "-f", "json").stdout)["rankers"]["default"]
    assert {k: v for k, v in payload["rankers"]["default"].items() if k != "ms_per_query"} == {
        k: v for k, v in expected.items() if k != "ms_per_query"
    }
    lines = result.stderr.strip().splitlines()
    assert "the MCP server cannot be started" in lines[0]  # the server that failed, first
    assert lines[-3:] == [
        f"warning: {queries}:6: tool 'list_issues', field 'relevant': query 's1': names a tool that is not in "
        "the catalog; query skipped",
        f"warning: {queries}:7: tool 'create_issue', field 'relevant': query 's2': names a tool that is not in "
        "the catalog; query skipped",
        "2 of 7 queries skipped: they name tools the catalog does not have; the figures are of the other "
        "queries (--strict makes this an error)",
    ]
    saved = write("run.json", "")
    assert run_cli(*args, "--save", str(saved)).code == 0
    assert json.loads(saved.read_text())["skipped"] == ["s1", "s2"]
    strict = run_cli("--strict", "eval", "-c", files["catalog"], "-q", str(queries))
    assert strict.code == 2 and strict.stdout == ""
    assert strict.stderr.strip().splitlines() == [
        f"error: {queries}:6: tool 'list_issues', field 'relevant': query 's1': names a tool that is not in "
        "the catalog (5 tools)"
    ]
