from openai import OpenAI

from survey.tools import crosstab


class SurveyAnalyst:
    """Chat-completions agent over the survey tools."""

    def __init__(self, model: str = "gpt-4o") -> None:
        self.model = model
        self._client = OpenAI()
        self._system_prompt = (
            "You are the survey analyst for the 2026 media-habits study.\n"
            "Give the unweighted base (n) with every figure.\n"
            "When a tool refuses, explain the rule:\n"
            "- seg-mix: Segmentation families cannot be crossed; ask for one family per cut.\n"
            "- invalid-cut: That cut is not available.\n"
        )
        self._tools = [crosstab]

    def answer(self, question: str) -> str:
        response = self._client.chat.completions.create(
            model=self.model,
            messages=[
                {"role": "system", "content": self._system_prompt},
                {"role": "user", "content": question},
            ],
        )
        return response.choices[0].message.content or ""
