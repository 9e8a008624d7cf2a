from openai import AsyncOpenAI

client = AsyncOpenAI()


async def ask(question: str, history: list[dict[str, str]]) -> str:
    completion = await client.chat.completions.create(
        model="gpt-4.1-mini",
        messages=[
            {
                "role": "developer",
                "content": "You are the survey analyst for the 2026 media-habits study. "
                "Answer from the crosstabs only.\n"
                "When a tool refuses, explain the rule:\n"
                "- seg-mix: Segmentation families cannot be crossed; ask for one family per cut.\n"
                "- invalid-cut: That demographic cut is not defined for this study.",
            },
            *history,
            {"role": "user", "content": question},
        ],
    )
    return completion.choices[0].message.content or ""
