"""RAGAS's own scores for the cases tests/ragas_parity.rs sends on stdin.

Input (JSON): {"precision": [[0/1 verdicts, best rank first], ...],
"relevance": [{"question": str, "contexts": [str], "answers": [str, str]}]}.
Output (JSON): {"precision": [float], "relevance": [float | null]}.

context_precision is NonLLMContextPrecisionWithReference's average
precision; context_relevance runs ContextRelevance._single_turn_ascore
with a stand-in LLM that replies with the two given answers in turn, so
RAGAS's own reading of ratings, averaging and short cuts decide the score.
"""

from __future__ import annotations

import asyncio
import json
import math
import sys
from types import SimpleNamespace
from typing import Any

from ragas.dataset_schema import SingleTurnSample
from ragas.metrics import ContextRelevance, NonLLMContextPrecisionWithReference


class ScriptedLLM:
    """Answers RAGAS's first judge with one text and its second with another
    (told apart by the second template's opening words)."""

    def __init__(self, first: str, second: str) -> None:
        self.first = first
        self.second = second

    async def agenerate_text(self, prompt: Any, n: int = 1, temperature: float = 0.0, **_: Any) -> Any:
        text = str(getattr(prompt, "text", prompt))
        reply = self.second if text.startswith("As a specially designed expert") else self.first
        return SimpleNamespace(generations=[[SimpleNamespace(text=reply)]])


def relevance(case: dict[str, Any]) -> float | None:
    metric = ContextRelevance()
    # RAGAS retries a judge whose answer holds no rating; each retry gets the
    # same answer here, as chunktui's cache would give it.
    first, second = case["answers"]
    metric.llm = ScriptedLLM(first, second)
    sample = SingleTurnSample(user_input=case["question"], retrieved_contexts=case["contexts"])
    score = asyncio.run(metric._single_turn_ascore(sample, callbacks=None))
    return None if score is None or math.isnan(score) else float(score)


def main() -> None:
    cases = json.load(sys.stdin)
    precision = NonLLMContextPrecisionWithReference()
    out = {
        "precision": [float(precision._calculate_average_precision(v)) for v in cases["precision"]],
        "relevance": [relevance(c) for c in cases["relevance"]],
    }
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
