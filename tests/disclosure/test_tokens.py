"""Token counting: exact cl100k_base counts, loaded offline."""

import pytest

from toolsearch_cli import tokens
from toolsearch_cli.errors import UsageError
from toolsearch_cli.model import Tool


def test_cl100k_counts_known_strings():
    counter = tokens.get_counter("cl100k_base")
    # Reference values of the cl100k_base encoding.
    assert counter.count("hello world") == 2
    assert counter.count("tiktoken is great!") == 6
    assert counter.count("") == 0


def test_tool_and_tools_tokens_count_the_openai_json():
    tool = Tool(name="getWeather", description="Get the weather of a city", parameters={"type": "object"})
    one = tokens.tool_tokens(tool)
    assert one == tokens.get_counter().count(
        '{"type":"function","function":{"name":"getWeather","description":"Get the weather of a city",'
        '"parameters":{"type":"object"}}}'
    )
    assert tokens.tools_tokens([]) == 0
    assert tokens.tools_tokens([tool, tool]) > one


def test_unknown_counter_is_a_usage_error():
    with pytest.raises(UsageError, match="unknown token counter 'nope'"):
        tokens.get_counter("nope")


def test_counters_are_pluggable():
    class Words:
        name = "words"

        def count(self, text):
            return len(text.split())

    tokens.register_counter("words", Words)
    try:
        assert tokens.get_counter("words").count("a b c") == 3
    finally:
        del tokens.COUNTER_BY_NAME["words"]
        tokens.get_counter.cache_clear()
