"""The words of a sentence that carry its meaning: lower case, identifiers split, stop words dropped."""

from __future__ import annotations

from .projections.fulltext import identifier_words

# English function words plus the filler of requests to a coding agent ("please make it so that").
STOPWORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been before being
    below between both but by can could did do does doing done down during each either else etc ever
    every few for from further had has have having he her here hers him his how i if in into is it its
    itself just let lets like me more most my need needs no nor not now of off on once only or other
    our out over own please same she should so some such than that the their them then there these
    they this those through to too under until up us very via want wants was we were what when where
    which while who whom why will with would you your make makes sure way thing things get gets got
    must might may shall cannot together able
""".split()
)


def content_words(text: str) -> list[str]:
    """Meaningful words in order of appearance, each once: `parseURL in the router` -> parse, url, router."""
    return list(dict.fromkeys(w for w in identifier_words(text) if len(w) > 1 and w not in STOPWORDS))
