"""The term: extensions granted with their reasons, and the grade history (regrades that explain
themselves). The rules and the ledger they read are `autograder.coursedir.term` and
`autograder.coursedir.ledger`."""
