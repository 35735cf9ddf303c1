"""The training data: the chunk format and its codec, the generator and its teacher, the text
format, and the positions as the network trainer reads them."""
