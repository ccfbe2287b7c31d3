import os
import tempfile

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np
import tensorflow as tf
import tf_keras
import h5py
import keras

m = tf_keras.Sequential(
    [
        tf_keras.layers.Dense(4, activation="relu", input_shape=(3,)),
        tf_keras.layers.Dense(1),
    ]
)
m.compile("adam", "mse")
m.fit(np.ones((16, 3)), np.zeros((16, 1)), epochs=2, verbose=0)
p = os.path.join(tempfile.mkdtemp(), "m.h5")
m.save(p)
m2 = tf_keras.models.load_model(p)
k = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
k.compile("adam", "mse")
k.fit(np.ones((8, 3)), np.zeros((8, 1)), verbose=0)
print(
    "ok tf",
    tf.__version__,
    "tf_keras",
    tf_keras.__version__,
    "keras",
    keras.__version__,
    "h5py",
    h5py.__version__,
    float(m2.predict(np.ones((1, 3)), verbose=0)[0][0]) is not None,
)
