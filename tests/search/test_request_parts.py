"""``request_parts``: the parts of a multi-intent request that the ``embedding`` ranker embeds on
their own (sentences and connective-led clauses, in English and Chinese; bounded; hostile input)."""

from __future__ import annotations

import time

import pytest

from toolsearch_cli.search.text import MAX_PARTS, request_parts


def test_a_one_part_request_has_no_parts():
    assert request_parts("Find me a multiplayer game with rating above 4.5 and compatible with Windows 10.") == []
    assert request_parts("find a recipe with yeast") == []
    assert request_parts("") == []


def test_english_sentences_and_clauses_a_connective_starts():
    text = (
        "I'm planning a film night. Can you search for videos about 'horror' on Vimeo? "
        "Fetch the related people in the 'cinema' category, and also give me a stream link for a YouTube video."
    )
    assert request_parts(text) == [
        "I'm planning a film night.",
        "Can you search for videos about 'horror' on Vimeo?",
        "Fetch the related people in the 'cinema' category, and also give me a stream link for a YouTube video.",
    ]
    assert request_parts(text, clauses=True)[2:] == [
        "Fetch the related people in the 'cinema' category",
        "and also give me a stream link for a YouTube video.",
    ]
    # a list joined by "and" is one part: "and birds" is too small to stand alone
    assert request_parts("Find photos of cats, dogs, and birds. Then email them to Bob.", clauses=True) == [
        "Find photos of cats, dogs, and birds.",
        "Then email them to Bob.",
    ]


def test_chinese_sentences_and_clauses():
    text = "我需要预订3月20日从北京到上海的火车票，然后帮我订一间上海的酒店。另外查一下明天的天气！"
    assert request_parts(text) == [
        "我需要预订3月20日从北京到上海的火车票，然后帮我订一间上海的酒店",
        "另外查一下明天的天气",
    ]
    assert request_parts(text, clauses=True) == [
        "我需要预订3月20日从北京到上海的火车票",
        "然后帮我订一间上海的酒店",
        "另外查一下明天的天气",
    ]


def test_tiny_pieces_join_a_neighbour():
    assert request_parts("Hi! Book a flight to Paris. Then email Bob the plan. Thanks!") == [
        "Hi! Book a flight to Paris.",
        "Then email Bob the plan. Thanks!",
    ]
    # abbreviations end no part: "D.C." and "U.S." leave pieces too small to stand alone
    assert request_parts("What is the distance between Boston, MA, and Washington, D.C. in miles?") == []
    assert request_parts("Who was the U.S. president during the Civil War?") == []


def test_quoted_text_is_data_not_parts():
    text = (
        'Create a file named "plan.txt" with the content "1. Finish the report; 2. Schedule a client meeting." '
        "Then email it to Bob."
    )
    assert request_parts(text) == [
        'Create a file named "plan.txt" with the content "1. Finish the report; 2. Schedule a client meeting."',
        "Then email it to Bob.",
    ]
    quoted_request = '"Book a flight to Paris. Then email Bob the plan."'  # the whole request, quoted
    assert len(request_parts(quoted_request)) == 2
    assert (
        request_parts('Please write the list "Book a flight. Email Bob." into the file notes.txt on my desktop') == []
    )


def test_the_number_of_parts_is_bounded_and_nothing_is_lost():
    text = " ".join(f"Do task number {i}." for i in range(100))
    parts = request_parts(text)
    assert len(parts) == MAX_PARTS
    assert " ".join(parts) == text  # neighbours joined in order, every word kept
    assert len(request_parts(text, max_parts=3)) == 3


@pytest.mark.parametrize(
    "text",
    [
        "word " * 200_000,  # a megabyte, no punctuation
        "a. " * 100_000,  # a hundred thousand tiny sentences
        "?!。；…" * 50_000,  # punctuation only
        '"' * 100_001 + " x. y.",  # quotes that never close
        "Do it now. " * 50_000,  # many real sentences
        "\n" * 100_000,
    ],
)
def test_hostile_requests_are_split_in_linear_time_and_bounded(text):
    start = time.process_time()
    parts = request_parts(text, clauses=True)
    assert len(parts) <= MAX_PARTS
    assert all(part.strip() for part in parts)
    assert time.process_time() - start < 5  # quadratic joining would take minutes at this size
