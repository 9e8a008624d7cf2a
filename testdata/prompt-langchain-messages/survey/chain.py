from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_openai import ChatOpenAI

SYSTEM_TEMPLATE = """You are the survey analyst for the {study} study.

When a tool refuses, explain the rule:
- seg-mix: Segmentation families cannot be crossed; ask for one family per cut.
- invalid-cut: That demographic cut is not defined for this study.
"""

prompt = ChatPromptTemplate.from_messages(
    [
        ("system", SYSTEM_TEMPLATE),
        MessagesPlaceholder("history"),
        ("human", "{question}"),
    ]
)

chain = prompt | ChatOpenAI(model="gpt-4o-mini", temperature=0) | StrOutputParser()
