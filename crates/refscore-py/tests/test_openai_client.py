"""The scripted OpenAI-compatible server, driven by the official `openai`
client: what a test author or a user pointing an SDK at it gets."""

import json

import openai
import pytest


@pytest.fixture()
def client(scripted_llm: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=scripted_llm, api_key="sk-test", max_retries=0, timeout=30)


MESSAGES = [{"role": "user", "content": "Is this polite? LABEL=polite"}]
TOOL = {
    "type": "function",
    "function": {
        "name": "record_judgement",
        "parameters": {
            "type": "object",
            "properties": {"label": {"type": "string", "enum": ["polite", "rude"]}},
            "required": ["label"],
        },
    },
}


def test_plain_and_tool_call_completions_parse_into_the_sdk_models(client: openai.OpenAI) -> None:
    r = client.chat.completions.create(model="judge", messages=MESSAGES)
    assert r.object == "chat.completion" and r.model == "judge"
    assert r.choices[0].finish_reason == "stop" and r.choices[0].message.role == "assistant"
    assert r.usage is not None and r.usage.total_tokens == r.usage.prompt_tokens + r.usage.completion_tokens
    r = client.chat.completions.create(
        model="judge", messages=MESSAGES, tools=[TOOL], tool_choice={"type": "function", "function": {"name": "record_judgement"}}
    )
    call = r.choices[0].message.tool_calls[0]
    assert r.choices[0].finish_reason == "tool_calls"
    assert call.function.name == "record_judgement"
    assert json.loads(call.function.arguments)["label"] == "polite"
    assert [m.id for m in client.models.list()]


def test_a_stream_gives_the_same_answer_as_a_whole_reply(client: openai.OpenAI) -> None:
    whole = client.chat.completions.create(model="judge", messages=MESSAGES)
    chunks = list(
        client.chat.completions.create(
            model="judge", messages=MESSAGES, stream=True, stream_options={"include_usage": True}
        )
    )
    assert len(chunks) >= 3, chunks
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == whole.choices[0].message.content
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].usage is not None and chunks[-1].usage.total_tokens > 0
    # A streamed tool call: its name first, then its arguments.
    chunks = list(client.chat.completions.create(model="judge", messages=MESSAGES, tools=[TOOL], tool_choice="required", stream=True))
    deltas = [c.choices[0].delta.tool_calls for c in chunks if c.choices and c.choices[0].delta.tool_calls]
    assert deltas[0][0].function.name == "record_judgement"
    arguments = "".join(d[0].function.arguments or "" for d in deltas)
    assert json.loads(arguments)["label"] == "polite"
    # The SDK's stream helper assembles the same completion.
    with client.chat.completions.stream(model="judge", messages=MESSAGES) as stream:
        final = stream.get_final_completion()
    assert final.choices[0].message.content == whole.choices[0].message.content


def test_models_request_ids_and_n_choices(client: openai.OpenAI) -> None:
    assert client.models.retrieve("gpt-4o-mini").id == "gpt-4o-mini"
    r = client.chat.completions.with_raw_response.create(model="judge", messages=MESSAGES, n=2)
    assert r.request_id and r.request_id.startswith("req_scripted_")
    completion = r.parse()
    assert [c.index for c in completion.choices] == [0, 1]
    assert completion.choices[1].message.content == completion.choices[0].message.content


def test_a_bad_request_is_refused_as_openai_refuses_it(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(model="judge", messages=[])
    assert e.value.status_code == 400 and e.value.param == "messages"
    assert e.value.type == "invalid_request_error" and e.value.request_id
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(model="judge", messages=MESSAGES, temperature=5)
    assert e.value.param == "temperature"
    with pytest.raises(openai.BadRequestError) as e:
        client.embeddings.create(model="emb", input=[])
    assert e.value.param == "input"


def test_structured_output_meets_the_schema_constraints(client: openai.OpenAI) -> None:
    import datetime

    import pydantic

    class Invoice(pydantic.BaseModel):
        count: int = pydantic.Field(gt=0)
        share: float = pydantic.Field(gt=0, lt=1)
        issued: datetime.datetime
        note: str = pydantic.Field(min_length=20)

    parse = getattr(client.chat.completions, "parse", None) or client.beta.chat.completions.parse
    r = parse(model="judge", messages=MESSAGES, response_format=Invoice)
    invoice = r.choices[0].message.parsed
    assert invoice is not None and invoice.count >= 1 and 0 < invoice.share < 1
    assert len(invoice.note) >= 20 and invoice.issued.year >= 2000
