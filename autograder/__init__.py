"""Autograder and course package for the recurrent-network chapters (11 and 12)."""
