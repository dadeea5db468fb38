"""Example bots built with the SDK."""
