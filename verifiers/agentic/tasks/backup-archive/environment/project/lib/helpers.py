def greet():
    return 'hi'
