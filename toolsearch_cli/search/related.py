"""Related words of API requests: how people say what an API calls something else.

People ask for their money back, an API says *refund*; they want a *directory*, the API has
*folders*; they *duplicate* a file, the operation *copies* it. :func:`expansions` gives, for a
request, the terms of words related to its own (each group below is a set of words that requests
and APIs use for the same action or thing), which the default ranker adds to the query at a lower
weight (:data:`~.bm25f.RELATED_WEIGHT`): a tool that says the request's own word still ranks
above one that says a related word.

Written by hand for this project from the vocabulary common to web and tool APIs (CRUD verbs,
resources, payments, files, messaging, scheduling, browsers, databases) and from the everyday
verbs people use for what terse MCP tool names say (*throw away* a branch, *put* a project *to
sleep*, *ship* a function; round 4 of issue 32); not learnt from any data set. Single words are
both triggers and expansions; phrases of several words ("money back") only trigger: their words
alone mean something else. A line ``a b > c d`` is one way: *a* and *b* bring *c* and *d*, not
the reverse (to *schedule* a meeting is to create one, but a request to create something is not
about schedules); there a trigger that the analyser drops as a stop word (*who*) is matched as a
word of the request.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .text import analyze

#: Each line a group of related words and phrases (phrases joined with ``_``).
GROUPS = """
create make new add generate
delete remove erase destroy purge discard get_rid_of drop wipe trash throw_away
list show enumerate browse what_are
get fetch retrieve read view show look_up lookup
update change edit modify alter adjust
search find look_for look_up query
copy duplicate clone replicate
move transfer relocate
send deliver dispatch
invite share collaborate collaboration
cancel stop end terminate abort call_off void kill halt shut_down
refund money_back pay_back reimburse give_back reimbursement
pay payment charge
bill invoice
customer client buyer shopper
user person people member
employee staff worker team_member
folder directory
file document attachment
meeting call conference
schedule book arrange plan
appointment booking reservation
attend attendee participant
register registrant enroll sign_up signup
subscription membership recurring
upload attach
download export
image picture photo screenshot
message text chat
comment note
reply respond answer
contents items children what's_inside inside
count how_many number total
balance how_much_money funds
link url
chart graph plot diagram
merge combine join
format highlight style color colour
rename change_the_name
start begin launch run kick_off
restart reboot
deploy release publish go_live ship roll_out
rollback revert restore roll_back undo
lock freeze block
unlock unfreeze unblock
webhook hook callback
certificate ssl tls https
domain dns hostname
variable env environment setting config configuration
permission access role
password credential secret
login log_in sign_in authenticate
logout log_out sign_out
location store shop branch place
product item goods merchandise
price cost amount fee
discount coupon promo promotion voucher
order purchase
shipment shipping delivery
stock inventory
navigate go_to visit open
click press tap
type enter fill input
select choose pick dropdown option
dialog popup alert confirm modal
database db
record row entry
schema fields columns structure
summarize summary aggregate
directions route drive driving distance
nearby near_me around
documentation docs manual reference guide
repository repo
issue ticket bug
notification alert notice
team group
recording video
report analytics stats statistics metrics
email mail
phone sms
review rating feedback
label tag
restore recover undelete
worksheet sheet tab
workbook spreadsheet
schedule arrange book > create
cancel > delete
get_rid_of clear > delete
show view display see > list get
who > user member participant
how_many > count total
how_much > amount total balance
remind > reminder notification
enable activate turn_on
disable deactivate turn_off
bring_back undelete > restore
go_back > rollback revert restore
kick_off trigger > start run build
rebuild > build
finish complete done resolve
tick_off check_off > complete done
assign assigned > member assignee owner
tell notify ping > send message notification
pause suspend hibernate sleep
resume unpause reactivate wake
wake unpause reactivate > restore start
save write store persist
remember memorize keep_in_mind note_down > save store add
compare diff difference differ
history log changelog
elevation altitude height sea_level how_high
compress shrink zip gzip
fix correct tweak bump > update edit
pull_up bring_up > get open view
walk walking cycle cycling bike biking on_foot > directions route
disk_space free_space > size storage
right_now at_the_moment > current
how_far > distance
latency throughput cpu p99 p95 > metrics
mute silence snooze
unmute unsilence unsnooze
""".strip().splitlines()

_PHRASE_WORDS = re.compile(r"[^\w']+")


@lru_cache(maxsize=1)
def _tables() -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    """(single-word trigger term -> related terms, phrase -> related terms)."""
    by_term: dict[str, set[str]] = {}
    by_phrase: dict[str, set[str]] = {}
    for line in GROUPS:
        triggers, arrow, targets = line.partition(">")
        members = triggers.split()
        words = [m for m in (targets.split() if arrow else members) if "_" not in m]
        terms = {t for w in words for t in analyze(w)}
        for member in members:
            analysed = analyze(member) if "_" not in member else []
            if not analysed:
                # a phrase, or a word the analyser drops ("who"): matched in the request's text
                by_phrase.setdefault(member.replace("_", " "), set()).update(terms)
            for term in analysed:
                by_term.setdefault(term, set()).update(terms - {term})
    return (
        {t: frozenset(r) for t, r in by_term.items() if r},
        {p: frozenset(r) for p, r in by_phrase.items() if r},
    )


def expansions(query: str, terms: list[str]) -> dict[str, str]:
    """Related terms of ``query`` (whose analysed terms are ``terms``) that it does not contain,
    each with the query word or phrase that brought it (for explanations)."""
    by_term, by_phrase = _tables()
    own = set(terms)
    out: dict[str, str] = {}
    for term in terms:
        for related in sorted(by_term.get(term, ())):
            if related not in own:
                out.setdefault(related, term)
    if by_phrase:
        text = " " + _PHRASE_WORDS.sub(" ", query.casefold().replace("’", "'")) + " "
        for phrase, related_terms in by_phrase.items():
            if f" {phrase} " in text:
                for related in sorted(related_terms):
                    if related not in own:
                        out.setdefault(related, phrase)
    return out
