"""The LMS through LTI 1.3: grades out, the class list in, people launched into the hub (docs/lms.md).

* `registration`: the platform's registration (`LTI_*` settings, every missing one named at once)
  and the tool's own key (`lti_private_key.pem` in the course root, made on first use, mode 0600),
  its public key set.
* `connection`: the calls to the LMS (its access token, kept and asked for again when it expires).
* `names`: the one user-name rule (`LTI_USERNAME_CLAIM`), from an LMS user to a login name.
* `roles`: which LMS roles make a learner and which staff.
* `roster`: each student's LMS user id (`LTI_ROSTER`), unmapped students listed, never guessed.
* `members`: the class list read through Names and Roles (`lti roster`) into the roster and gradebook.
* `push`: the final grades of the class as AGS scores, one line item per assignment found by its
  `resourceId`, only what changed since the last push, what was accepted recorded in the course's
  database.
"""
