// The LangChain.js integration against the real @langchain/core and a real engram serve: the
// chat history inside RunnableWithMessageHistory, the retriever's Documents, and
// withEngramMemory putting the context into a prompt and writing the exchange back.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Document } from "@langchain/core/documents";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { RunnableLambda, RunnableWithMessageHistory } from "@langchain/core/runnables";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { EngramClient } from "engram-client";
import { EngramChatMessageHistory, EngramRetriever, withEngramMemory } from "engram-client/langchain";
import { startEngram } from "./support/engram-server.mjs";

const USER = "carol";
let server, client;

before(async () => {
  server = await startEngram();
  client = new EngramClient({ baseUrl: server.url });
  await client.addMemoriesBatch({
    user_id: USER,
    infer: false,
    memories: [
      { content: "Carol is allergic to shellfish", type: "fact", importance: 0.9, tags: ["health"] },
      { content: "Carol lives in Porto", type: "fact" },
    ],
  });
});

after(() => server.stop());

test("the chat history keeps messages in an Engram session", async () => {
  const history = new EngramChatMessageHistory({ client, userId: USER, sessionId: "lc-history" });
  assert.deepEqual(await history.getMessages(), []);
  await history.addMessages([new HumanMessage("I started learning the piano"), new AIMessage("How exciting!")]);
  await history.addUserMessage("Any tips?");
  await history.addAIChatMessage("Practise daily.");
  const messages = await history.getMessages();
  assert.deepEqual(
    messages.map((m) => [m.getType(), m.content]),
    [["human", "I started learning the piano"], ["ai", "How exciting!"], ["human", "Any tips?"], ["ai", "Practise daily."]],
  );
  const session = await client.getSession("lc-history", { user_id: USER });
  assert.equal(session.turn_count, 4);

  await history.clear();
  assert.notEqual(history.sessionId, "lc-history");
  assert.deepEqual(await history.getMessages(), []);
  assert.ok((await client.getSession("lc-history", { user_id: USER })).closed_at, "the old session is closed");
  await history.addUserMessage("A new conversation");
  assert.equal((await history.getMessages()).length, 1);
});

test("RunnableWithMessageHistory reads and writes the Engram history", async () => {
  const prompt = ChatPromptTemplate.fromMessages([new MessagesPlaceholder("history"), ["human", "{input}"]]);
  const seen = [];
  const model = RunnableLambda.from(async (value) => {
    seen.push(value.toChatMessages().map((m) => m.content));
    return new AIMessage(`reply ${seen.length}`);
  });
  const chain = new RunnableWithMessageHistory({
    runnable: prompt.pipe(model),
    getMessageHistory: (sessionId) => new EngramChatMessageHistory({ client, userId: USER, sessionId }),
    inputMessagesKey: "input",
    historyMessagesKey: "history",
  });
  const config = { configurable: { sessionId: "lc-runnable" } };
  await chain.invoke({ input: "My name is Carol" }, config);
  await chain.invoke({ input: "What is my name?" }, config);
  assert.deepEqual(seen[1], ["My name is Carol", "reply 1", "What is my name?"]);
});

test("the retriever returns memories as Documents with id, type, score and dates", async () => {
  const retriever = new EngramRetriever({ client, userId: USER, k: 2 });
  const docs = await retriever.invoke("what food allergies do I have?");
  assert.ok(docs.length > 0 && docs.length <= 2);
  const [first] = docs;
  assert.ok(first instanceof Document);
  assert.equal(first.pageContent, "Carol is allergic to shellfish");
  assert.equal(first.id, first.metadata.id);
  assert.equal(first.metadata.type, "fact");
  assert.equal(typeof first.metadata.score, "number");
  assert.deepEqual(first.metadata.tags, ["health"]);
  assert.match(first.metadata.created_at, /^\d{4}-\d\d-\d\dT/);
  assert.match(first.metadata.updated_at, /^\d{4}-\d\d-\d\dT/);
});

test("withEngramMemory puts the context in the prompt and writes the exchange back", async () => {
  const prompt = ChatPromptTemplate.fromMessages([["system", "You help with cooking.\n{memory}"], ["human", "{input}"]]);
  const prompts = [];
  const model = RunnableLambda.from(async (value) => {
    prompts.push(value.toChatMessages()[0].content);
    return new AIMessage("How about a mushroom risotto?");
  });
  const chain = withEngramMemory(prompt.pipe(model), {
    client,
    userId: USER,
    sessionId: "lc-memory",
    tokenBudget: 400,
    profile: true,
  });
  const answer = await chain.invoke({ input: "What should I cook tonight?" });
  assert.equal(answer.content, "How about a mushroom risotto?");
  assert.match(prompts[0], /allergic to shellfish/);
  const session = await client.getSession("lc-memory", { user_id: USER });
  assert.deepEqual(
    session.working.turns.map((t) => [t.role, t.content]),
    [["user", "What should I cook tonight?"], ["assistant", "How about a mushroom risotto?"]],
  );
});

test("withEngramMemory works with a chat model and no session (plain adds)", async () => {
  const prompt = ChatPromptTemplate.fromMessages([["system", "{memory}"], ["human", "{input}"]]);
  const chain = withEngramMemory(prompt.pipe(new FakeListChatModel({ responses: ["Noted."] })), {
    client,
    userId: "dave",
  });
  await chain.invoke({ input: "I have a dog called Rex" });
  const found = await client.search({ user_id: "dave", query: "dog" });
  assert.ok(found.results.some((hit) => /Rex/.test(hit.memory.content)), JSON.stringify(found));
});
