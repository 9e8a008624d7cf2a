from langchain_core.messages import SystemMessage
from langchain_openai import ChatOpenAI
from langgraph.graph import END, START, MessagesState, StateGraph

model = ChatOpenAI(model="gpt-4o")


def call_model(state: MessagesState) -> dict[str, list[object]]:
    system = SystemMessage(
        content=(
            "You are the survey analyst for the 2026 media-habits study.\n"
            "When a tool refuses, explain the rule:\n"
            "- seg-mix: Segmentation families cannot be crossed; ask for one family per cut.\n"
            "- invalid-cut: That demographic cut is not defined for this study."
        )
    )
    return {"messages": [model.invoke([system, *state["messages"]])]}


builder = StateGraph(MessagesState)
builder.add_node("model", call_model)
builder.add_edge(START, "model")
builder.add_edge("model", END)
graph = builder.compile()
