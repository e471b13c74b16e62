"""The LangChain-shaped chat history and retriever, by duck typing (the real langchain package
is not installed here), against a real engram serve."""

from engram_client.langchain import (ChatMessage, Document, EngramChatMessageHistory,
                                     EngramRetriever)
from support import ClientTestCase

USER = "carol"


class LangChainMessage:
    """Stands in for a langchain_core message: what the history reads of one is .type and
    .content (a string or a list of parts)."""

    def __init__(self, type, content):
        self.type = type
        self.content = content


class LangChainShapesTest(ClientTestCase):
    def setUp(self):
        super().setUp()
        self.server = self.start_server()
        self.client = self.engram_client(self.server)

    def test_chat_history(self):
        history = EngramChatMessageHistory(self.client, USER, "lc-history")
        self.assertEqual(history.messages, [])
        history.add_messages([LangChainMessage("human", "I started learning the piano"),
                              LangChainMessage("ai", [{"type": "text", "text": "How exciting!"}])])
        history.add_user_message("Any tips?")
        history.add_ai_message("Practise daily.")
        self.assertEqual(history.messages, [
            ChatMessage("human", "I started learning the piano"), ChatMessage("ai", "How exciting!"),
            ChatMessage("human", "Any tips?"), ChatMessage("ai", "Practise daily.")])
        self.assertEqual(self.client.get_session("lc-history", USER).turn_count, 4)

        history.clear()
        self.assertNotEqual(history.session_id, "lc-history")
        self.assertEqual(history.get_messages(), [])
        self.assertIsNotNone(self.client.get_session("lc-history", USER).closed_at)
        history.add_user_message("A new conversation")
        self.assertEqual(len(history.messages), 1)

    def test_retriever(self):
        self.client.add_memories_batch(USER, [
            {"content": "Carol is allergic to shellfish", "type": "fact", "tags": ["health"]},
            {"content": "Carol lives in Porto", "type": "fact"}], infer=False)
        retriever = EngramRetriever(self.client, USER, k=2)
        docs = retriever.invoke("what food allergies do I have?")
        self.assertTrue(0 < len(docs) <= 2)
        first = docs[0]
        self.assertIsInstance(first, Document)
        self.assertEqual(first.page_content, "Carol is allergic to shellfish")
        self.assertEqual(first.id, first.metadata["id"])
        self.assertEqual(first.metadata["type"], "fact")
        self.assertIsInstance(first.metadata["score"], float)
        self.assertEqual(first.metadata["tags"], ["health"])
        self.assertRegex(first.metadata["created_at"], r"^\d{4}-\d\d-\d\dT")
        self.assertEqual(retriever.get_relevant_documents("shellfish")[0].id, first.id)
