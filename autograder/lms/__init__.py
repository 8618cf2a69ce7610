"""Grades to the LMS through LTI 1.3 Assignment and Grade Services (docs/lms.md).

* `registration`: the platform's registration (`LTI_*` settings) and the tool's own key
  (`lti_private_key.pem` in the course root, made on first use, mode 0600), its public key set.
* `roster`: each student's LMS user id (`LTI_ROSTER`), unmapped students listed, never guessed.
* `push`: the final grades of the class as AGS scores, one line item per assignment found by its
  `resourceId`, only what changed since the last push, what was accepted recorded in the course's
  database.
"""
