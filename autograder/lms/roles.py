"""What an LMS role makes a person in the course: a learner, staff (who grade), or neither.

LTI 1.3 names roles by LIS URIs (`http://purl.imsglobal.org/vocab/lis/v2/membership#Learner`,
`.../membership/Instructor#TeachingAssistant`); LTI 1.1's short names (`Learner`, `Instructor`) are
still sent by some platforms for the course's own roles. Only the course's (membership) roles count:
an institution or system role (`.../institution/person#Instructor`, `.../system/person#Administrator`)
says what a person is elsewhere, not in this course. The roster (`lti roster`) and the hub's launch
(`autograder.hub.launch`) read roles by this one rule.
"""

from __future__ import annotations

#: The course roles that make a person staff (who grade: formgrader), by their short name.
STAFF = ("Instructor", "TeachingAssistant", "ContentDeveloper", "Administrator", "Mentor")
#: The course role of a student.
LEARNER = "Learner"
#: How a course (membership) role's URI starts.
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"


def course_roles(roles) -> set[str]:
    """The short names of the course (membership) roles among `roles`: `.../membership#Instructor`
    and `.../membership/Instructor#TeachingAssistant` give Instructor and TeachingAssistant, a short
    name is itself, an institution or system role gives nothing."""
    found = set()
    for role in roles or ():
        role = str(role).strip()
        if role.startswith(MEMBERSHIP):
            found.add(role.rsplit("#", 1)[-1].rsplit("/", 1)[-1])
        elif role and "/" not in role and "#" not in role and ":" not in role:
            found.add(role)
    return found


def is_staff(roles) -> bool:
    return bool(course_roles(roles) & set(STAFF))


def is_learner(roles) -> bool:
    return LEARNER in course_roles(roles)
